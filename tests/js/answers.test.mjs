// The rating form's state as data: each question's answer as the form sends it (drafts and submits alike), the
// client-side check of it, a refusal's errors, and what a draft that did not save does next.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  DRAFT_RETRY_MS, answerOf, draftFailure, refusalErrors, validateAnswers,
} from "../../frontend/static/frontend/workspace/answers.js";

const choice = (picked) => ({ type: "choice", rows: [{ picked }] });
const perResponse = (a, b) => ({ type: "likert", scope: "response", rows: [{ side: "A", picked: a }, { side: "B", picked: b }] });

describe("answerOf", () => {
  test("a text answer is sent as written, and not at all when blank", () => {
    assert.equal(answerOf({ type: "text", text: "  A is sharper.\n" }), "  A is sharper.\n");
    assert.equal(answerOf({ type: "text", text: " \n\t" }), undefined);
    assert.equal(answerOf({ type: "text", text: "" }), undefined);
  });

  test("a choice is the picked option's value, falsy values included", () => {
    assert.equal(answerOf(choice("A")), "A");
    assert.equal(answerOf(choice(0)), 0);
    assert.equal(answerOf(choice(false)), false);
    assert.equal(answerOf(choice(null)), undefined);
  });

  test("a per-response question is answered side by side, unrated sides left out", () => {
    assert.deepEqual(answerOf(perResponse(4, 2)), { A: 4, B: 2 });
    assert.deepEqual(answerOf(perResponse(null, 0)), { B: 0 });
    assert.equal(answerOf(perResponse(null, null)), undefined);
  });

  test("criteria: fixed ones once labelled, written ones once anything is written or labelled", () => {
    const question = {
      type: "criteria",
      rows: [
        { fixed: true, criterion: "Follows the prompt", picked: "A" },
        { fixed: true, criterion: "No artefacts", picked: null },
        { fixed: false, criterion: "Text is legible", picked: null },
        { fixed: false, criterion: "", picked: "B" },
        { fixed: false, criterion: "", picked: null },
      ],
    };
    assert.deepEqual(answerOf(question), [
      { criterion: "Follows the prompt", label: "A" },
      { criterion: "Text is legible", label: null },
      { criterion: "", label: "B" },
    ]);
    assert.equal(answerOf({ type: "criteria", rows: [{ fixed: true, criterion: "x", picked: null }] }), undefined);
  });
});

describe("validateAnswers", () => {
  test("required questions left open are named, with the message their kind needs", () => {
    const questions = [
      { id: "overall", type: "choice", required: true },
      { id: "why", type: "text", required: true },
      { id: "optional", type: "choice", required: false },
    ];
    assert.deepEqual(validateAnswers(questions, {}), { overall: "Choose an answer.", why: "Write a few words." });
    assert.deepEqual(validateAnswers(questions, { overall: "A", why: "sharper" }), {});
  });

  test("a falsy answer is an answer", () => {
    assert.deepEqual(validateAnswers([{ id: "q", type: "choice", required: true }], { q: 0 }), {});
  });

  test("a required per-response question needs both sides", () => {
    const questions = [{ id: "quality", type: "likert", scope: "response", required: true }];
    assert.deepEqual(validateAnswers(questions, {}), { quality: "Rate both responses." });
    assert.deepEqual(validateAnswers(questions, { quality: { A: 3 } }), { quality: "Rate response B." });
    assert.deepEqual(validateAnswers(questions, { quality: { B: 3 } }), { quality: "Rate response A." });
    assert.deepEqual(validateAnswers(questions, { quality: { A: 3, B: 0 } }), {});
    assert.deepEqual(validateAnswers([{ ...questions[0], required: false }], { quality: { A: 3 } }), {});
  });

  test("criteria: a label needs its criterion, a criterion its label", () => {
    const question = { id: "c", type: "criteria", required: false, fixed: 0 };
    assert.deepEqual(validateAnswers([question], { c: [{ criterion: "", label: "A" }] }), { c: "Write the criterion you labelled." });
    assert.deepEqual(validateAnswers([question], { c: [{ criterion: "legible", label: null }] }),
      { c: "Label every criterion: A, B or equivalent." });
    assert.deepEqual(validateAnswers([question], { c: [{ criterion: "legible", label: "B" }] }), {});
  });

  test("criteria: fixed ones all labelled once any is (or when required), one at least when required", () => {
    const fixed = { id: "c", type: "criteria", required: false, fixed: 3 };
    const two = [{ criterion: "a", label: "A" }, { criterion: "b", label: "B" }];
    assert.deepEqual(validateAnswers([fixed], { c: two }), { c: "Label every criterion: A, B or equivalent." });
    assert.deepEqual(validateAnswers([fixed], {}), {});
    assert.deepEqual(validateAnswers([{ ...fixed, required: true }], {}), { c: "Label every criterion: A, B or equivalent." });
    assert.deepEqual(validateAnswers([{ id: "c", type: "criteria", required: true, fixed: 0 }], {}),
      { c: "Write and label at least one criterion." });
  });

  test("what the form reads, serialised and checked: errors only for what is missing", () => {
    const read = { overall: choice("B"), quality: perResponse(5, null), why: { type: "text", text: " " } };
    const values = Object.fromEntries(Object.entries(read).map(([id, q]) => [id, answerOf(q)]).filter(([, v]) => v !== undefined));
    assert.deepEqual(values, { overall: "B", quality: { A: 5 } });
    const questions = [
      { id: "overall", type: "choice", required: true },
      { id: "quality", type: "likert", scope: "response", required: true },
      { id: "why", type: "text", required: true },
    ];
    assert.deepEqual(validateAnswers(questions, values), { quality: "Rate response B.", why: "Write a few words." });
  });
});

describe("refusalErrors", () => {
  test("the server's errors by field when it gives them", () => {
    const fields = { overall: "Not an option." };
    assert.equal(refusalErrors({ status: 400, data: { message: "Invalid", extra: { fields } } }), fields);
  });

  test("else its message, or the status, for the whole form", () => {
    assert.deepEqual(refusalErrors({ status: 409, data: { message: "The lease ended." } }), { __all__: "The lease ended." });
    assert.deepEqual(refusalErrors({ status: 403, data: null }), { __all__: "Refused (status 403)." });
  });
});

describe("draftFailure", () => {
  test("a refused draft (4xx) says why and is not sent again", () => {
    assert.deepEqual(draftFailure({ status: 409, data: { message: "The lease ended." } }),
      { message: "Draft not saved: The lease ended.", state: "error", retryMs: 0 });
    assert.deepEqual(draftFailure({ status: 404, data: null }), { message: "Draft not saved: status 404", state: "error", retryMs: 0 });
  });

  test("while the server cannot answer (network, 503) the page reconnects, waiting longer each time", () => {
    const lost = draftFailure({ status: 0, data: { message: "Failed to fetch" } });
    assert.equal(lost.message, "Reconnecting… your answer is kept");
    assert.equal(lost.state, "reconnecting");
    assert.ok(lost.retryMs >= 800 && lost.retryMs <= 1200, lost.retryMs);
    const later = draftFailure({ status: 503, data: null, retryAfter: 3 }, 4);
    assert.equal(later.state, "reconnecting");
    assert.ok(later.retryMs >= 6400 && later.retryMs <= 9600, later.retryMs);
    assert.ok(draftFailure({ status: 503, data: null, retryAfter: 3 }, 1).retryMs >= 3000, "never before Retry-After");
  });

  test("a server error (500) is tried again at the old pace, said as an error", () => {
    assert.deepEqual(draftFailure({ status: 500, data: null }),
      { message: "Draft not saved (status 500); retrying", state: "error", retryMs: DRAFT_RETRY_MS });
  });
});
