// Which key runs which action on the rating form: keys.js's one listener and form.js's answer keys, with the page
// stood in for by the little they touch (document's keydown listener, HTMLElement for "is this a text box").
import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";

let keydown = null;
class FakeElement {
  constructor(props) { Object.assign(this, props); }
}
globalThis.HTMLElement = FakeElement;
globalThis.document = { addEventListener: (type, listener) => { if (type === "keydown") keydown = listener; } };

const { bind, boundKeys, clearBindings } = await import("../../frontend/static/frontend/workspace/keys.js");
const { bindAnswerKeys } = await import("../../frontend/static/frontend/workspace/form.js");

// A rating form that records what the keys asked of it.
function fakeForm({ addable = false } = {}) {
  const calls = [];
  const record = (name) => (...args) => { calls.push([name, ...args]); };
  return {
    calls,
    form: { querySelector: (selector) => (selector === "[data-add-criterion]" && addable ? {} : null) },
    move: record("move"), pick: record("pick"), editCurrent: record("editCurrent"),
    focusRationale: record("focusRationale"), addCriterion: record("addCriterion"),
  };
}

const textBox = (inForm = true) => new FakeElement({
  tagName: "TEXTAREA",
  blurred: false,
  blur() { this.blurred = true; },
  closest: (selector) => (selector === "[data-rating-form]" && inForm ? {} : null),
});

// A keydown as the listener sees it; returns the event (defaultPrevented: a binding took it).
function press(key, { target = {}, ...mods } = {}) {
  const event = {
    key, target, altKey: false, ctrlKey: false, metaKey: false, shiftKey: false, isComposing: false, defaultPrevented: false,
    preventDefault() { this.defaultPrevented = true; },
    ...mods,
  };
  keydown(event);
  return event;
}

let form;
let rating;
beforeEach(() => {
  clearBindings();
  form = fakeForm({ addable: true });
  rating = true;
  bindAnswerKeys(form, () => rating);
});

describe("the answer keys", () => {
  test("keys.js listens for keydown on the document", () => {
    assert.equal(typeof keydown, "function");
  });

  test("a digit, y or n chooses the option with that key", () => {
    for (const key of ["0", "3", "9", "y", "n"]) {
      assert.equal(press(key).defaultPrevented, true, key);
    }
    assert.deepEqual(form.calls, [["pick", "0"], ["pick", "3"], ["pick", "9"], ["pick", "y"], ["pick", "n"]]);
  });

  test("j and ArrowDown move to the next question, k and ArrowUp to the previous one", () => {
    for (const key of ["j", "ArrowDown", "k", "ArrowUp"]) press(key);
    assert.deepEqual(form.calls, [["move", 1], ["move", 1], ["move", -1], ["move", -1]]);
  });

  test("Enter writes in the highlighted box, r in the rationale", () => {
    press("Enter");
    press("r");
    assert.deepEqual(form.calls, [["editCurrent"], ["focusRationale"]]);
  });

  test("a adds a criterion only where the form offers to", () => {
    press("a");
    clearBindings();
    const fixed = fakeForm({ addable: false });
    bindAnswerKeys(fixed, () => true);
    assert.equal(press("a").defaultPrevented, false);
    assert.deepEqual(form.calls, [["addCriterion"]]);
    assert.deepEqual(fixed.calls, []);
  });

  test("while `when` says no (a dialog open, the pair submitted) no key does anything", () => {
    rating = false;
    for (const key of ["1", "j", "Enter", "a"]) assert.equal(press(key).defaultPrevented, false, key);
    assert.deepEqual(form.calls, []);
  });

  test("in a text box the keys type: only Escape, which leaves the box", () => {
    const box = textBox();
    assert.equal(press("j", { target: box }).defaultPrevented, false);
    assert.equal(press("1", { target: box }).defaultPrevented, false);
    assert.equal(press("Escape", { target: box }).defaultPrevented, true);
    assert.equal(box.blurred, true);
    assert.deepEqual(form.calls, []);
  });

  test("Escape in a text box outside the rating form is left alone", () => {
    const box = textBox(false);
    assert.equal(press("Escape", { target: box }).defaultPrevented, false);
    assert.equal(box.blurred, false);
  });

  test("a key with Alt, one being composed or one already handled is not taken", () => {
    assert.equal(press("1", { altKey: true }).defaultPrevented, false);
    assert.equal(press("1", { isComposing: true }).defaultPrevented, false);
    press("1", { defaultPrevented: true });
    assert.deepEqual(form.calls, []);
  });
});

describe("the registry", () => {
  test("the first binding that applies runs: Enter is the answer's until the pair is submitted, then Next's", () => {
    let submitted = false;
    const next = [];
    bind(["Enter", "n"], { when: () => submitted, run: (event) => next.push(event.key) });
    press("Enter");
    rating = false;
    submitted = true;
    press("Enter");
    press("n");
    assert.deepEqual(form.calls, [["editCurrent"]]);
    assert.deepEqual(next, ["Enter", "n"]);
  });

  test("boundKeys lists every key bound, and clearBindings forgets them all", () => {
    const keys = boundKeys();
    for (const key of ["j", "k", "ArrowDown", "ArrowUp", "0", "9", "y", "n", "Enter", "r", "a", "Escape"]) {
      assert.ok(keys.includes(key), key);
    }
    clearBindings();
    assert.deepEqual(boundKeys(), []);
    assert.equal(press("j").defaultPrevented, false);
  });
});
