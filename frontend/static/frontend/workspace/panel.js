// One question at a time: the rating panel shows only the question the keyboard is on, under a map of all
// the questions (answered, missing, current) that jumps to any of them.
const STORAGE = "concord:one-question-at-a-time";

function answered(question) {
  const rows = [...question.querySelectorAll("[data-row]")];
  return rows.length > 0 && rows.every((row) => {
    const radios = row.querySelectorAll("input[type=radio]");
    if (radios.length) return [...radios].some((radio) => radio.checked);
    return [...row.querySelectorAll("textarea, input[type=text]")].some((box) => box.value.trim());
  });
}

// Whether the panel starts one question at a time: as the rater last chose (`saved`, "on" or "off", kept in
// localStorage), else on short screens, where the whole form is taller than the panel.
export function startsOneAtATime(saved, innerHeight) {
  return saved === null ? innerHeight < 820 : saved === "on";
}

export class QuestionMap {
  constructor(form, toggle, map) {
    this.form = form;
    this.toggle = toggle;
    this.map = map;
    const saved = localStorage.getItem(STORAGE);
    this.set(startsOneAtATime(saved, window.innerHeight), { remember: false });
    toggle.addEventListener("click", () => this.set(!this.on));
    form.form.addEventListener("change", () => this.render());
    form.form.addEventListener("input", () => this.render());
    const focusRow = form.focusRow.bind(form);
    form.focusRow = (...args) => { focusRow(...args); this.render(); };
  }

  set(on, { remember = true } = {}) {
    this.on = on;
    if (remember) localStorage.setItem(STORAGE, on ? "on" : "off");
    this.form.form.classList.toggle("one-at-a-time", on);
    this.toggle.setAttribute("aria-pressed", String(on));
    this.map.hidden = !on;
    this.render();
  }

  render() {
    if (!this.on) return;
    const questions = this.form.questions();
    const buttons = questions.map((question, index) => {
      const button = document.createElement("button");
      button.type = "button";
      const legend = question.querySelector("legend")?.firstChild?.textContent.trim() || `Question ${index + 1}`;
      const state = question.classList.contains("current") ? "current" : answered(question) ? "answered" : "missing";
      button.className = `map-${state}`;
      button.textContent = `${index + 1}${state === "answered" ? " ✓" : ""}`;
      // The name starts with the visible number, so "click 2" works for a speech user.
      button.setAttribute("aria-label", `${index + 1}, ${legend}: ${state === "answered" ? "answered" : state === "current" ? "current question" : "not answered"}`);
      button.setAttribute("aria-keyshortcuts", "j k");
      button.title = legend;
      button.addEventListener("click", () => this.form.focusRow(this.form.rows().indexOf(question.querySelector("[data-row]"))));
      return button;
    });
    const current = questions.findIndex((question) => question.classList.contains("current"));
    const where = document.createElement("span");
    where.className = "muted";
    where.textContent = `Question ${current + 1} of ${questions.length}`;
    this.map.replaceChildren(where, ...buttons);
  }
}
