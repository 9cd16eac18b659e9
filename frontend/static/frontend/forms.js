// API refusals on a page: an error that names the input it needs (extra.field, an API field name) is told in the
// page's own words, the label of that form field, never a command-line option.

// The text of the label around (or for) a form control, without the text of the control itself.
export function fieldLabel(form, name) {
  const control = form.elements.namedItem(name);
  const element = control && (control instanceof RadioNodeList ? control[0] : control);
  if (!element) return null;
  const label = element.closest("label") || (element.id && form.querySelector(`label[for="${element.id}"]`));
  if (!label) return null;
  const copy = label.cloneNode(true);
  copy.querySelectorAll("input, select, textarea, datalist, option").forEach((node) => node.remove());
  const text = copy.textContent.replace(/\s+/g, " ").trim();
  return text ? { element, text } : null;
}

// What the person should do on this form: tick a box, choose from a list, or fill in a field.
export function fieldHint(form, name) {
  const found = fieldLabel(form, name);
  if (!found) return "";
  const { element, text } = found;
  if (element.type === "checkbox") return `tick "${text}"`;
  if (element.tagName === "SELECT") return `choose the "${text}" field`;
  return `fill in the "${text}" field`;
}

// The message to show for an API error body ({code, message, extra}) sent from ``form``.
export function errorMessage(form, body, status) {
  let text = body.message || `status ${status}`;
  const field = body.extra && body.extra.field;
  const hint = field ? fieldHint(form, field) : "";
  if (hint) text += ` — ${hint}`;
  if (body.extra && body.extra.fields) text += " " + JSON.stringify(body.extra.fields);
  return text;
}
