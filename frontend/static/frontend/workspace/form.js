// The rating form: answers as shown (left = A), keyboard stops, inline validation, server errors.
import { answerOf, validateAnswers } from "./answers.js";
import { bind } from "./keys.js";

// The answer's keys, on the rating page and the review page alike; `when(event)` says whether they apply now.
export function bindAnswerKeys(form, when) {
  bind(["j", "ArrowDown"], { group: "Rating", label: "Next question", when, run: () => form.move(1) });
  bind(["k", "ArrowUp"], { group: "Rating", label: "Previous question", when, run: () => form.move(-1) });
  bind(["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "y", "n"], {
    group: "Rating", label: "Choose the option with that key in the highlighted question (then move on)", hint: ["0–9", "y", "n"],
    when, run: (event) => form.pick(event.key),
  });
  bind(["Enter"], { group: "Rating", label: "Write in the highlighted text box", when, run: () => form.editCurrent() });
  bind(["r"], { group: "Rating", label: "Write the rationale", when, run: () => form.focusRationale() });
  bind(["a"], {
    group: "Rating", label: "Add a criterion", when: (e) => when(e) && Boolean(form.form.querySelector("[data-add-criterion]")),
    run: () => form.addCriterion(),
  });
  bind(["Escape"], {
    group: "Rating", label: "Leave the text box", inText: true, when: (e) => when(e) && e.target.closest("[data-rating-form]"),
    run: (e) => e.target.blur(),
  });
}

// The form's answer keys as its buttons show them, for the `?` sheet (keys.js `renderHelp`): each question with
// options, { id, label, oriented, options: [{ key, label }] }, the options of its first row in their order.
export function answerKeys(formElement) {
  return [...formElement.querySelectorAll("[data-question]")].map((question) => ({
    id: question.dataset.question,
    label: question.querySelector("legend")?.firstChild?.textContent.trim() || question.dataset.question,
    oriented: question.hasAttribute("data-oriented"),
    options: [...(question.querySelector("[data-row]")?.querySelectorAll("input[type=radio]") || [])].map((input) => ({
      key: input.dataset.key, label: input.closest("label").querySelector("span").textContent.trim(),
    })),
  })).filter((question) => question.options.length);
}

// What the form reads of a question for its answer (answers.js): its kind, the text written, and each row's pick,
// side and criterion.
function readQuestion(question) {
  const { type, scope } = question.dataset;
  const rows = [...question.querySelectorAll("[data-row]")];
  const picked = (row) => {
    const input = row.querySelector("input[type=radio]:checked");
    return input ? JSON.parse(input.value) : null;
  };
  if (type === "text") return { type, scope, text: question.querySelector("textarea").value };
  if (type === "criteria") {
    return {
      type, scope, rows: rows.map((row) => {
        const fixed = row.querySelector("[data-criterion]");
        const criterion = fixed ? fixed.dataset.criterion : row.querySelector("[data-criterion-input]").value.trim();
        return { fixed: Boolean(fixed), criterion, picked: picked(row) };
      }),
    };
  }
  if (scope === "response") return { type, scope, rows: rows.map((row) => ({ side: row.dataset.side, picked: picked(row) })) };
  return { type, scope, rows: [{ picked: picked(rows[0]) }] };
}

export class RatingForm {
  constructor(form) {
    this.form = form;
    this.current = -1;
    this.onChange = () => {};
    form.addEventListener("input", (event) => this.changed(event));
    form.addEventListener("change", (event) => this.changed(event));
    form.addEventListener("click", (event) => {
      const row = event.target.closest("[data-row]");
      if (row) this.focusRow(this.rows().indexOf(row), { scroll: false });
    });
    form.addEventListener("submit", (event) => event.preventDefault());
    const add = form.querySelector("[data-add-criterion]");
    if (add) add.addEventListener("click", () => this.addCriterion());
  }

  rows() {
    return [...this.form.querySelectorAll("[data-row]")];
  }

  questions() {
    return [...this.form.querySelectorAll("[data-question]")];
  }

  changed(event) {
    const question = event.target.closest("[data-question]");
    if (question) this.clearError(question.dataset.question);
    this.onChange();
  }

  // Every answer given so far, keyed by question id, in the orientation shown.
  values() {
    const out = {};
    for (const question of this.questions()) {
      const value = answerOf(readQuestion(question));
      if (value !== undefined) out[question.dataset.question] = value;
    }
    return out;
  }

  // Client-side check of what the server will check: required answers, every criterion labelled.
  validate() {
    const values = this.values();
    const questions = this.questions().map((question) => ({
      id: question.dataset.question,
      type: question.dataset.type,
      scope: question.dataset.scope,
      required: question.hasAttribute("data-required"),
      fixed: question.querySelectorAll("[data-criterion]").length,
    }));
    return validateAnswers(questions, values);
  }

  showErrors(errors) {
    let first = null;
    for (const [id, message] of Object.entries(errors)) {
      const slot = this.form.querySelector(`[data-error-for="${CSS.escape(id)}"]`) || this.form.querySelector('[data-error-for="__all__"]');
      slot.textContent = message;
      slot.hidden = false;
      const question = this.form.querySelector(`[data-question="${CSS.escape(id)}"]`);
      if (question) {
        question.classList.add("invalid");
        first = first || question;
      }
    }
    if (first) {
      const rows = [...first.querySelectorAll("[data-row]")];
      const open = rows.find((row) => row.querySelector("input[type=radio]") && !row.querySelector("input[type=radio]:checked"));
      this.focusRow(this.rows().indexOf(open || rows[0]));
    }
  }

  clearError(id) {
    const question = this.form.querySelector(`[data-question="${CSS.escape(id)}"]`);
    if (question) question.classList.remove("invalid");
    const slot = this.form.querySelector(`[data-error-for="${CSS.escape(id)}"]`);
    if (slot) slot.hidden = true;
  }

  firstOpenRow() {
    const rows = this.rows();
    const open = rows.findIndex((row) => row.querySelector("input[type=radio]") && !row.querySelector("input[type=radio]:checked"));
    return open === -1 ? 0 : open;
  }

  focusRow(index, { scroll = true } = {}) {
    const rows = this.rows();
    if (!rows.length) return;
    this.current = Math.max(0, Math.min(index, rows.length - 1));
    rows.forEach((row, i) => row.classList.toggle("current", i === this.current));
    this.questions().forEach((q) => q.classList.toggle("current", q.contains(rows[this.current])));
    if (scroll) rows[this.current].scrollIntoView({ block: "nearest" });
  }

  move(step) {
    this.focusRow((this.current < 0 ? this.firstOpenRow() - step : this.current) + step);
  }

  currentRow() {
    const rows = this.rows();
    if (this.current < 0) this.focusRow(this.firstOpenRow());
    return rows[this.current];
  }

  // Pick the option bound to `key` in the current row, then move on to the next row.
  pick(key) {
    const row = this.currentRow();
    const input = row && row.querySelector(`input[type=radio][data-key="${CSS.escape(key)}"]`);
    if (!input) return false;
    input.checked = true;
    input.dispatchEvent(new Event("change", { bubbles: true }));
    if (this.current < this.rows().length - 1) this.move(1);
    return true;
  }

  // The current row's text box (criterion or rationale), focused for typing.
  editCurrent() {
    const row = this.currentRow();
    const box = row && row.querySelector("[data-text-input]");
    if (box) box.focus();
    return Boolean(box);
  }

  focusRationale() {
    const box = this.form.querySelector('[data-type="text"] textarea');
    if (!box) return false;
    this.focusRow(this.rows().indexOf(box.closest("[data-row]")));
    box.focus();
    return true;
  }

  addCriterion() {
    const rows = [...this.form.querySelectorAll('[data-type="criteria"] [data-row]')];
    const last = rows[rows.length - 1];
    if (!last || !last.querySelector("[data-criterion-input]")) return;
    const copy = last.cloneNode(true);
    const index = rows.length;
    const name = last.querySelector("input[type=radio]").name.replace(/\.\d+$/, `.${index}`);
    copy.querySelectorAll("input[type=radio]").forEach((input) => { input.name = name; input.checked = false; });
    copy.querySelector("[data-criterion-input]").value = "";
    last.after(copy);
    this.focusRow(this.rows().indexOf(copy));
    copy.querySelector("[data-criterion-input]").focus();
  }

  lock() {
    this.form.querySelectorAll("input, textarea, button").forEach((el) => { el.disabled = true; });
    this.form.classList.add("locked");
  }
}
