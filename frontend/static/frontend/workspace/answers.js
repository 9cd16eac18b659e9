// The rating form's answers as data (form.js reads them from the page and shows the errors): one question's answer
// from what its rows hold, the client-side check of what the server will check, a refusal's errors by field, and
// what a draft that did not save says and whether it is tried again. Nothing here touches the page.
import { RECONNECTING, delayMs, retryable } from "./retry.js";

// One question's answer, or undefined when it has none yet. `question` is what the form reads of it:
// { type, scope, text, rows }, each row { picked, side, criterion, fixed } (picked: the chosen option's value or null;
// criterion: a fixed criterion's text, or what was written in a criterion box, trimmed).
export function answerOf(question) {
  const { rows = [] } = question;
  if (question.type === "text") {
    return question.text.trim() ? question.text : undefined;
  }
  if (question.type === "criteria") {
    const items = [];
    for (const row of rows) {
      const { criterion, fixed, picked: label } = row;
      if (fixed ? label !== null : criterion || label !== null) items.push({ criterion, label });
    }
    return items.length ? items : undefined;
  }
  if (question.scope === "response") {
    const perSide = {};
    for (const row of rows) {
      if (row.picked !== null) perSide[row.side] = row.picked;
    }
    return Object.keys(perSide).length ? perSide : undefined;
  }
  return rows[0].picked !== null ? rows[0].picked : undefined;
}

// The errors the server would answer, by question id: required answers, every criterion labelled. `questions` are
// { id, type, scope, required, fixed } (fixed: how many fixed criteria the question lists); `values` as the form
// sends them (an answer per question id).
export function validateAnswers(questions, values) {
  const errors = {};
  for (const { id, type, scope, required, fixed = 0 } of questions) {
    const value = values[id];
    if (type === "criteria") {
      const items = value || [];
      if (items.some((item) => !item.criterion)) errors[id] = "Write the criterion you labelled.";
      else if (items.some((item) => item.label === null)) errors[id] = "Label every criterion: A, B or equivalent.";
      else if (fixed && items.length < fixed && (required || items.length)) errors[id] = "Label every criterion: A, B or equivalent.";
      else if (required && !items.length) errors[id] = "Write and label at least one criterion.";
    } else if (scope === "response" && required) {
      const missing = ["A", "B"].filter((side) => !value || value[side] === undefined);
      if (missing.length) errors[id] = `Rate ${missing.length === 2 ? "both responses" : "response " + missing[0]}.`;
    } else if (required && value === undefined) {
      errors[id] = type === "text" ? "Write a few words." : "Choose an answer.";
    }
  }
  return errors;
}

// The errors of an answer the server refused (4xx), by field as the form shows them: the server's own per-field
// messages, else its message (or the status) for the whole form.
export function refusalErrors(result) {
  return result.data?.extra?.fields || { __all__: result.data?.message || `Refused (status ${result.status}).` };
}

// A draft the server did not store after `attempt` tries: the line the page shows, its state, and after how long it is
// sent again (0: never). While the server cannot answer (retry.js) the waits grow from 1 s to 15 s.
export const DRAFT_RETRY_MS = 3000;
export function draftFailure(result, attempt = 1) {
  const reason = result.data?.message || `status ${result.status}`;
  if (retryable(result)) {
    return { message: RECONNECTING, state: "reconnecting", retryMs: delayMs(attempt, result.retryAfter) };
  }
  // Refused (the lease ended, the pair was closed): retrying cannot help; the answers stay on screen.
  if (result.status >= 400 && result.status < 500) return { message: `Draft not saved: ${reason}`, state: "error", retryMs: 0 };
  return { message: `Draft not saved (${reason}); retrying`, state: "error", retryMs: DRAFT_RETRY_MS };
}
