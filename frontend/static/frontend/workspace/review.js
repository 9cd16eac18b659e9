// The review page: change a submitted answer or withdraw it, over the API; warnings are shown, never block.
import { send } from "./api.js";
import { refusalErrors } from "./answers.js";
import { RatingForm, answerKeys, bindAnswerKeys } from "./form.js";
import { bind, renderHelp } from "./keys.js";
import { wireViewing } from "./viewing.js";

const config = JSON.parse(document.getElementById("review-config").textContent);
const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];
const form = new RatingForm($("[data-rating-form]"));
const state = $("[data-save-state]");
const correctButton = $("[data-correct]");
const withdrawButton = $("[data-withdraw]");

function showWarnings(warnings) {
  const list = $("[data-warnings]");
  list.replaceChildren(...warnings.map((text) => Object.assign(document.createElement("li"), { textContent: `⚠ Warning: ${text}` })));
}

function locked(message) {
  form.lock();
  if (correctButton) correctButton.hidden = true;
  if (withdrawButton) withdrawButton.hidden = true;
  $("[data-review-state]").textContent = message;
}

async function correct() {
  const errors = form.validate();
  if (Object.keys(errors).length) {
    form.showErrors(errors);
    state.textContent = "Some answers are missing; see the messages in red";
    return;
  }
  state.textContent = "Saving…";
  const result = await send("POST", config.urls.correct, { values: form.values() });
  if (result.ok) {
    showWarnings(result.data.warnings || []);
    state.textContent = "Correction saved";
    const history = $("[data-revisions]");
    history.querySelector("[data-unchanged]")?.remove();
    const when = Object.assign(document.createElement("time"), { dateTime: new Date().toISOString() });
    const line = document.createElement("li");
    line.append("Corrected ", when);
    history.append(line);
    showTimes();
    return;
  }
  if (result.status === 409) return locked(result.data?.message || "This answer can no longer be changed.");
  form.showErrors(refusalErrors(result));
  state.textContent = result.data?.message || "Not saved";
}

async function withdraw() {
  if (!window.confirm("Withdraw your answer? The pair goes to another rater and you will not see it again.")) return;
  const result = await send("POST", config.urls.withdraw, {});
  if (result.ok) return locked("You withdrew this answer.");
  if (result.status === 409) return locked(result.data?.message || "This answer can no longer be withdrawn.");
  state.textContent = result.data?.message || `Not withdrawn (status ${result.status}).`;
}

// The soft check as the answer changes: the same rule the server applies when it stores a correction.
let checkTimer = null;
form.onChange = () => {
  clearTimeout(checkTimer);
  checkTimer = setTimeout(async () => {
    const result = await send("POST", config.urls.check, { values: form.values() });
    if (result.ok) showWarnings(result.data.warnings || []);
  }, 400);
};

// Times in the history as the browser writes them, the server's and those added here alike.
function showTimes() {
  for (const time of $$("[data-revisions] time")) time.textContent = new Date(time.dateTime).toLocaleString();
}
showTimes();

// The same keys as the rating page: the answer's, the viewing aids', and the shortcuts list.
const dialogs = { help: $("#shortcuts"), inspector: $("#inspector") };
const idle = () => !Object.values(dialogs).some((dialog) => dialog.open);
const editable = () => idle() && Boolean(correctButton) && !correctButton.hidden;
const toggleHelp = () => {
  if (dialogs.help.open) dialogs.help.close();
  else {
    dialogs.help.showModal();
    dialogs.help.scrollTop = 0;
  }
};
bind(["?"], { label: "Show or hide these shortcuts", run: toggleHelp });
bind(["g"], { label: "Back to My work", when: idle, run: () => $("[data-back-link]").click() });
bindAnswerKeys(form, editable);
if (correctButton) {
  correctButton.addEventListener("click", correct);
  bind(["Ctrl+Enter"], { group: "Rating", label: "Save the correction", inText: true, when: editable, run: correct });
}
if (withdrawButton) {
  withdrawButton.addEventListener("click", withdraw);
  bind(["W"], { group: "Rating", label: "Withdraw my answer (asks first)", when: () => idle() && !withdrawButton.hidden, run: withdraw });
}
if (!correctButton) form.lock();
$$("[data-dialog-close]").forEach((button) => button.addEventListener("click", () => button.closest("dialog").close()));
$$("[data-open-dialog]").forEach((button) => button.addEventListener("click", toggleHelp));
wireViewing({ pair: $(".pair"), inspectorDialog: dialogs.inspector, when: idle, styleNonce: config.style_nonce });
renderHelp($("[data-shortcut-list]"), { answers: answerKeys(form.form) });
form.focusRow(0, { scroll: false });
document.body.dataset.reviewReady = "true";
