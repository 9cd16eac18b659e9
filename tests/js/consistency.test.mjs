// Consistency warnings before a submit: what the rating page makes of the server's check (consistency.js). The rule
// itself is the server's (annotation/workqueue/consistency.py); the page only reads its answer, and a check that
// could not be made never holds a submit back.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { checkAnswers, checkFindings } from "../../frontend/static/frontend/workspace/consistency.js";

const NONE = { warnings: [], questions: [] };
const answered = (data, ok = true) => ({ ok, status: ok ? 200 : 503, data });

describe("checkFindings", () => {
  test("the warnings and the questions they name, as the server answered", () => {
    const data = { warnings: ["Overall preference prefers B, but your scores favour A."], questions: ["overall", "image_quality"] };
    assert.deepEqual(checkFindings(answered(data)), data);
  });

  test("consistent answers find nothing", () => {
    assert.deepEqual(checkFindings(answered({ warnings: [], questions: [] })), NONE);
  });

  test("a refused or failed check finds nothing, so the submit goes on", () => {
    assert.deepEqual(checkFindings(answered({ warnings: ["x"], questions: ["overall"] }, false)), NONE);
    assert.deepEqual(checkFindings(answered(null)), NONE);
    assert.deepEqual(checkFindings(null), NONE);
  });

  test("an answer of the wrong shape is read as nothing found; questions only come with a warning", () => {
    assert.deepEqual(checkFindings(answered({ warnings: "text" })), NONE);
    assert.deepEqual(checkFindings(answered({ warnings: ["", 3], questions: ["overall"] })), NONE);
    assert.deepEqual(checkFindings(answered({ warnings: ["w"], questions: "overall" })), { warnings: ["w"], questions: [] });
  });
});

describe("checkAnswers", () => {
  test("asks once and reads the answer", async () => {
    let asked = 0;
    const found = await checkAnswers(async () => { asked += 1; return answered({ warnings: ["w"], questions: ["overall"] }); });
    assert.equal(asked, 1);
    assert.deepEqual(found, { warnings: ["w"], questions: ["overall"] });
  });

  test("a network failure counts as nothing found", async () => {
    assert.deepEqual(await checkAnswers(async () => { throw new TypeError("Failed to fetch"); }), NONE);
  });
});
