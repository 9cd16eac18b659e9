// Consistency warnings before a submit: the server's soft check of the answers (POST /api/v1/assignments/<id>/check/,
// annotation/workqueue/consistency.py, the rule the review page shows) asked before the rating page sends them. When
// the answers contradict each other (rubrics for one side, the overall preference for the other; the prompt called
// invalid with a strong preference) a prompt names what contradicts: the rater goes back to change it (Esc), or
// submits the answers as they are (Enter), and the submit then says that the rater confirmed. Never a refusal.

// What a check answered (api.js's `send` result, or null when the request itself failed): the warnings and the
// questions they are about. A check that could not be made finds nothing: it never holds a submit back.
export function checkFindings(result) {
  if (!result?.ok || !Array.isArray(result.data?.warnings)) return { warnings: [], questions: [] };
  const texts = result.data.warnings.filter((text) => typeof text === "string" && text);
  const questions = Array.isArray(result.data.questions) ? result.data.questions.filter((id) => typeof id === "string") : [];
  return { warnings: texts, questions: texts.length ? questions : [] };
}

// Ask the check through `ask()` (a promise of api.js's result); a network failure counts as nothing found.
export async function checkAnswers(ask) {
  try {
    return checkFindings(await ask());
  } catch {
    return checkFindings(null);
  }
}

// The prompt: a modal dialog listing the warnings, with "Submit as is" and "Go back and change".
export class ConsistencyPrompt {
  // `form` is form.js's RatingForm; `onConfirm()` submits as is; `onBack()` is told once the rater went back.
  constructor(dialog, { form, onConfirm, onBack = () => {} }) {
    this.dialog = dialog;
    this.form = form;
    this.onConfirm = onConfirm;
    this.onBack = onBack;
    this.list = dialog.querySelector("[data-consistency-warnings]");
    this.questions = [];
    this.outcome = "";
    dialog.querySelector("[data-consistency-confirm]").addEventListener("click", () => this.confirm());
    dialog.querySelector("[data-consistency-back]").addEventListener("click", () => this.back());
    // Esc (the dialog's own cancel) and the buttons all close it; what happens next follows how it closed.
    dialog.addEventListener("close", () => this.closed());
  }

  get open() {
    return this.dialog.open;
  }

  show({ warnings, questions }) {
    this.questions = questions;
    this.outcome = "";
    this.mark([]);
    this.list.replaceChildren(...warnings.map((text) => Object.assign(document.createElement("li"), { textContent: text })));
    this.dialog.showModal();
    this.dialog.scrollTop = 0;
    // The focus on the list, not on a button: a key held down from the submit cannot press one.
    this.list.focus();
  }

  confirm() {
    if (!this.open) return;
    this.outcome = "confirm";
    this.dialog.close();
  }

  back() {
    if (!this.open) return;
    this.outcome = "back";
    this.dialog.close();
  }

  // Closed from outside (the lease ran out, the page is left): neither submit nor go back.
  dismiss() {
    if (!this.open) return;
    this.outcome = "dismissed";
    this.dialog.close();
  }

  closed() {
    const outcome = this.outcome || "back"; // Esc
    this.outcome = "";
    if (outcome === "confirm") {
      this.mark([]);
      this.onConfirm();
    } else if (outcome === "back") {
      this.mark(this.questions);
      this.focusQuestion(this.questions[0]);
      this.onBack();
    }
  }

  // The questions the warning is about, outlined in the form until the next check.
  mark(ids) {
    for (const question of this.form.questions()) question.classList.toggle("warned", ids.includes(question.dataset.question));
  }

  focusQuestion(id) {
    const question = id && this.form.questions().find((q) => q.dataset.question === id);
    const row = question?.querySelector("[data-row]");
    if (row) this.form.focusRow(this.form.rows().indexOf(row));
  }
}
