// Keyboard shortcuts: one registry, one listener, and the `?` overlay that lists them.
import { answerKeyGroups, bindingFor, comboOf, takesText } from "./keymap.js";

const bindings = [];

function typing(target) {
  return target instanceof HTMLElement && takesText(target);
}

// The name of a key press (keymap.js), exported here as before.
export { comboOf };

// Register `run` for `keys`; `when` decides whether it applies now; `label` and `group` feed the overlay.
export function bind(keys, { label, group = "General", when = () => true, run, inText = false, hint }) {
  bindings.push({ keys: [].concat(keys), label, group, when, run, inText, hint });
}

// Every key something is bound to now (the browser tests hold each key a control shows to this list).
export function boundKeys() {
  return bindings.flatMap((binding) => binding.keys);
}

// Forget every binding: the page's content is being replaced by the next pair's, which binds its own.
export function clearBindings() {
  bindings.length = 0;
}

document.addEventListener("keydown", (event) => {
  if (event.defaultPrevented || event.isComposing) return;
  const combo = comboOf(event);
  if (!combo) return;
  const binding = bindingFor(bindings, combo, event, typing(event.target));
  if (!binding) return;
  event.preventDefault();
  binding.run(event);
});

// The sheet's answer keys: each set of options as its buttons show it, same keys, same order (keymap.js groups them).
function answerSection(answers) {
  const section = document.createElement("section");
  section.className = "answer-keys";
  const heading = document.createElement("h3");
  heading.textContent = "Answers";
  section.append(heading);
  const groups = answerKeyGroups(answers);
  if (groups.some((group) => group.oriented)) {
    const note = document.createElement("p");
    note.className = "answer-keys-note";
    note.textContent = "Keys follow the screen: 1 means the left response is better, the last key the right one, a tie in the middle.";
    section.append(note);
  }
  for (const group of groups) {
    const block = document.createElement("div");
    block.dataset.answerKeys = group.ids.join(" ");
    const title = document.createElement("p");
    title.className = "answer-keys-for";
    title.textContent = group.labels.join(", ");
    const list = document.createElement("ol");
    for (const option of group.options) {
      const item = document.createElement("li");
      const kbd = document.createElement("kbd");
      kbd.textContent = option.key;
      const what = document.createElement("span");
      what.textContent = option.label;
      item.append(kbd, " ", what);
      list.append(item);
    }
    block.append(title, list);
    section.append(block);
  }
  return section;
}

// Fill the shortcuts dialog from the registry, grouped, one line per labelled binding; `answers` (form.js
// `answerKeys`) adds the form's answer keys first, as its buttons show them.
export function renderHelp(container, { answers = [] } = {}) {
  const groups = new Map();
  for (const binding of bindings) {
    if (!binding.label) continue;
    if (!groups.has(binding.group)) groups.set(binding.group, []);
    groups.get(binding.group).push(binding);
  }
  container.replaceChildren();
  if (answers.length) container.append(answerSection(answers));
  for (const [group, items] of groups) {
    const section = document.createElement("section");
    const heading = document.createElement("h3");
    heading.textContent = group;
    const list = document.createElement("dl");
    for (const item of items) {
      const keys = document.createElement("dt");
      for (const key of item.hint || item.keys) {
        const kbd = document.createElement("kbd");
        kbd.textContent = key === " " ? "Space" : key;
        keys.append(kbd, " ");
      }
      const what = document.createElement("dd");
      what.textContent = item.label;
      list.append(keys, what);
    }
    section.append(heading, list);
    container.append(section);
  }
}
