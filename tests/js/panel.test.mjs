// One question at a time: where the panel starts, from the rater's kept choice or the screen's height.
import assert from "node:assert/strict";
import { test } from "node:test";

import { startsOneAtATime } from "../../frontend/static/frontend/workspace/panel.js";

test("the rater's own choice, kept in localStorage, wins whatever the screen", () => {
  assert.equal(startsOneAtATime("on", 1200), true);
  assert.equal(startsOneAtATime("off", 600), false);
});

test("with no choice kept, short screens start one question at a time", () => {
  assert.equal(startsOneAtATime(null, 819), true);
  assert.equal(startsOneAtATime(null, 820), false);
});
