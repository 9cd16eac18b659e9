// The pure half of the keyboard shortcuts (keys.js holds the registry and the page's one listener): a key press's
// name, whether the element it lands on takes typing, which binding a press runs, and the arrow keys' directions.

// The name of a key press: printable keys as typed ("?", "+", "A"), others with their modifiers.
export function comboOf(event) {
  if (event.altKey) return null;
  const ctrl = event.ctrlKey || event.metaKey ? "Ctrl+" : "";
  // Space types a character but is named with its Shift, as "Shift+ " (the page's Shift+Space).
  const printable = event.key.length === 1 && event.key !== " ";
  const shift = event.shiftKey && !printable ? "Shift+" : "";
  return `${ctrl}${shift}${printable && ctrl ? event.key.toLowerCase() : event.key}`;
}

// Whether an element takes the keys typed on it (a text box, a select): then only bindings marked `inText` apply.
export function takesText(element) {
  if (element.isContentEditable || element.tagName === "TEXTAREA" || element.tagName === "SELECT") return true;
  return element.tagName === "INPUT" && !["radio", "checkbox", "range", "button", "submit"].includes(element.type);
}

// The binding a press named `combo` runs: the first registered for it that applies in a text box when `inText`, and
// whose `when(event)` says it applies now; null when none does.
export function bindingFor(bindings, combo, event, inText) {
  for (const binding of bindings) {
    if (!binding.keys.includes(combo) || (inText && !binding.inText) || !binding.when(event)) continue;
    return binding;
  }
  return null;
}

// The pan of an arrow key ("ArrowLeft" … "ArrowDown"), `step` of the view: [dx, dy], the content moving against the arrow.
export function arrowStep(key, step) {
  return { Left: [step, 0], Right: [-step, 0], Up: [0, step], Down: [0, -step] }[key.replace("Arrow", "")];
}

// The answer keys for the `?` sheet, from what the form's buttons show: `questions` are { id, label, oriented,
// options: [{ key, label }] } in the form's order, the options in the buttons' order. Questions with the same options
// (the rubrics) share one entry: [{ ids, labels, oriented, options }], in the order each set first appears.
export function answerKeyGroups(questions) {
  const groups = new Map();
  for (const { id, label, oriented = false, options } of questions) {
    if (!options.length) continue;
    const name = JSON.stringify([oriented, options.map((option) => [option.key, option.label])]);
    if (!groups.has(name)) groups.set(name, { ids: [], labels: [], oriented, options });
    groups.get(name).ids.push(id);
    groups.get(name).labels.push(label);
  }
  return [...groups.values()];
}
