// The review page: change a submitted answer or withdraw it, over the API; warnings are shown, never block.
import { send } from "./api.js";
import { RatingForm } from "./form.js";
import { bind } from "./keys.js";
import { Compare, ZoomGroup, syncScroll } from "./media.js";

const config = JSON.parse(document.getElementById("review-config").textContent);
const $ = (selector, root = document) => root.querySelector(selector);
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
    history.append(Object.assign(document.createElement("li"), { textContent: `Corrected ${new Date().toLocaleString()}` }));
    return;
  }
  if (result.status === 409) return locked(result.data?.message || "This answer can no longer be changed.");
  form.showErrors(result.data?.extra?.fields || { __all__: result.data?.message || `Refused (status ${result.status}).` });
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

if (correctButton) {
  correctButton.addEventListener("click", correct);
  bind(["Ctrl+Enter"], { label: "Save the correction", inText: true, run: correct });
}
if (withdrawButton) withdrawButton.addEventListener("click", withdraw);
if (!correctButton) form.lock();

// The pair as it was shown, with the same viewing aids (by pointer; the rating page has their keys).
const frames = [...document.querySelectorAll("[data-zoom-frame]")];
if (frames.length) {
  const zoom = new ZoomGroup(frames, $("[data-zoom-level]"));
  document.querySelectorAll("[data-zoom]").forEach((button) => button.addEventListener("click", () => {
    if (button.dataset.zoom === "reset") zoom.reset(); else zoom.zoomAt(button.dataset.zoom === "in" ? 1.25 : 0.8);
  }));
}
const slider = $("[data-compare-slider]");
if (slider) {
  const compare = new Compare($(".pair"), slider, [...document.querySelectorAll("[data-compare-choose]")]);
  $("[data-compare-toggle]").addEventListener("click", () => compare.toggle());
}
const syncToggle = $("[data-sync-scroll-toggle]");
if (syncToggle) syncScroll([...document.querySelectorAll("[data-side-scroll]")], syncToggle);
document.body.dataset.reviewReady = "true";
const stepsToggle = $("[data-steps-toggle]");
if (stepsToggle) {
  stepsToggle.addEventListener("click", () => {
    const steps = [...document.querySelectorAll("[data-step]")];
    const open = !steps.every((step) => step.open);
    steps.forEach((step) => { step.open = open; });
  });
}
