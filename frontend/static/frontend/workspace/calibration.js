// The calibration page: one calibration pair with the workspace's own form and keys; the answer goes to the
// calibration API, which answers with the expected answer, its explanation and where the rater's answer differs.
import { send } from "./api.js";
import { refusalErrors } from "./answers.js";
import { bind, renderHelp } from "./keys.js";
import { RatingForm, bindAnswerKeys } from "./form.js";
import { VisibleTimer } from "./media.js";
import { wireViewing } from "./viewing.js";

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];
const config = JSON.parse($("#workspace-config").textContent);
const form = new RatingForm($("[data-rating-form]"));
const timer = new VisibleTimer(null, {});
const saveState = $("[data-save-state]");
const feedback = $("[data-feedback]");
const dialogs = { help: $("#shortcuts"), instructions: $("#instructions"), inspector: $("#inspector") };
let phase = "rating"; // rating → submitting → feedback

const anyDialog = () => Object.values(dialogs).some((d) => d && d.open);
const rating = () => phase === "rating" && !anyDialog();

function toggleDialog(dialog) {
  if (dialog.open) dialog.close();
  else {
    Object.values(dialogs).forEach((d) => d && d.open && d.close());
    dialog.showModal();
  }
}

// The feedback, written as text nodes: the expected answer against the rater's, question by question.
function showFeedback(data) {
  phase = "feedback";
  form.lock();
  $("[data-actions]").hidden = true;
  const verdict = $("[data-feedback-verdict]", feedback);
  verdict.textContent = data.matched ? "✓ Your overall preference matches the expected answer"
    : "✗ Your overall preference differs from the expected answer";
  feedback.dataset.matched = String(data.matched);
  const list = $("[data-feedback-differences]", feedback);
  list.replaceChildren(...data.differences.map((row) => {
    const item = document.createElement("li");
    item.dataset.same = String(row.same);
    const label = document.createElement("strong");
    label.textContent = `${row.same ? "✓" : "✗"} ${row.label}: `;
    item.append(label, `expected ${row.expected_text}; yours ${row.given_text}`);
    return item;
  }));
  $("[data-feedback-explanation]", feedback).textContent = data.explanation;
  const over = data.round.verdict !== "open";
  $("[data-feedback-next]", feedback).firstChild.textContent = over ? "See your result " : "Next calibration pair ";
  feedback.hidden = false;
  $("[data-feedback-next]", feedback).focus();
}

async function submit() {
  if (phase !== "rating") return;
  const errors = form.validate();
  if (Object.keys(errors).length) {
    form.showErrors(errors);
    saveState.textContent = "Some answers are missing; see the messages in red";
    return;
  }
  phase = "submitting";
  saveState.textContent = "Submitting…";
  const result = await send("POST", config.urls.answer, {
    item: config.item, values: form.values(), time_on_item_ms: timer.elapsedMs(),
  });
  if (result.ok) {
    saveState.textContent = "";
    showFeedback(result.data);
    return;
  }
  phase = "rating";
  form.showErrors(refusalErrors(result));
  saveState.textContent = result.data?.message || `Not submitted (status ${result.status})`;
}

const next = () => location.assign(config.urls.page);

bind(["?"], { label: "Show or hide these shortcuts", run: () => toggleDialog(dialogs.help) });
if (dialogs.instructions) bind(["i"], { label: "Show or hide the instructions", run: () => toggleDialog(dialogs.instructions) });
bindAnswerKeys(form, rating);
bind(["Ctrl+Enter"], { group: "Rating", label: "Submit", inText: true, when: rating, run: submit });
bind(["Enter", "n"], { group: "Rating", label: "Next, once the feedback is shown", when: () => phase === "feedback" && !anyDialog(), run: next });
bind(["g"], { label: "Back to the queue", when: () => !anyDialog(), run: () => $("[data-queue-link]").click() });

$("[data-submit]").addEventListener("click", submit);
$("[data-feedback-next]").addEventListener("click", next);
$$("[data-dialog-close]").forEach((button) => button.addEventListener("click", () => button.closest("dialog").close()));
$$("[data-open-dialog]").forEach((button) => button.addEventListener("click", () => toggleDialog($(`#${button.dataset.openDialog}`))));
wireViewing({ pair: $(".pair"), inspectorDialog: dialogs.inspector, when: rating, styleNonce: config.style_nonce });
renderHelp($("[data-shortcut-list]"));
form.focusRow(form.firstOpenRow(), { scroll: false });
document.body.dataset.workspaceReady = "1";
