// Key handling without a page: a press's name, what counts as typing, which binding a press runs, arrow pans.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { answerKeyGroups, arrowStep, bindingFor, comboOf, takesText } from "../../frontend/static/frontend/workspace/keymap.js";

const press = (key, mods = {}) => ({ key, altKey: false, ctrlKey: false, metaKey: false, shiftKey: false, ...mods });

describe("comboOf", () => {
  test("names printable keys as typed, whatever Shift did to them", () => {
    assert.equal(comboOf(press("j")), "j");
    assert.equal(comboOf(press("?", { shiftKey: true })), "?");
    assert.equal(comboOf(press("W", { shiftKey: true })), "W");
    assert.equal(comboOf(press("+", { shiftKey: true })), "+");
  });

  test("prefixes Shift to keys that type nothing, Space included", () => {
    assert.equal(comboOf(press("ArrowLeft", { shiftKey: true })), "Shift+ArrowLeft");
    assert.equal(comboOf(press(" ", { shiftKey: true })), "Shift+ ");
    assert.equal(comboOf(press(" ")), " ");
    assert.equal(comboOf(press("PageDown")), "PageDown");
  });

  test("Ctrl and Cmd are one modifier, with printable keys in lower case", () => {
    assert.equal(comboOf(press("Enter", { ctrlKey: true })), "Ctrl+Enter");
    assert.equal(comboOf(press("Enter", { metaKey: true })), "Ctrl+Enter");
    assert.equal(comboOf(press("A", { ctrlKey: true, shiftKey: true })), "Ctrl+a");
    assert.equal(comboOf(press("Enter", { ctrlKey: true, shiftKey: true })), "Ctrl+Shift+Enter");
  });

  test("a press with Alt has no name (the browser's and the system's own)", () => {
    assert.equal(comboOf(press("j", { altKey: true })), null);
  });
});

describe("takesText", () => {
  test("text boxes, selects and editable content take the keys typed on them", () => {
    for (const element of [{ tagName: "TEXTAREA" }, { tagName: "SELECT" }, { tagName: "DIV", isContentEditable: true },
      { tagName: "INPUT", type: "text" }, { tagName: "INPUT", type: "search" }, { tagName: "INPUT", type: "number" }]) {
      assert.equal(takesText(element), true, JSON.stringify(element));
    }
  });

  test("choices, buttons, sliders and other elements do not", () => {
    for (const type of ["radio", "checkbox", "range", "button", "submit"]) {
      assert.equal(takesText({ tagName: "INPUT", type }), false, type);
    }
    assert.equal(takesText({ tagName: "BUTTON" }), false);
    assert.equal(takesText({ tagName: "DIV", isContentEditable: false }), false);
  });
});

describe("bindingFor", () => {
  const binding = (keys, extra = {}) => ({ keys, when: () => true, inText: false, ...extra });

  test("runs the first binding registered for the key", () => {
    const first = binding(["Enter", "n"]);
    const second = binding(["Enter"]);
    assert.equal(bindingFor([binding(["j"]), first, second], "Enter", {}, false), first);
    assert.equal(bindingFor([binding(["j"]), first, second], "n", {}, false), first);
  });

  test("passes over a binding that does not apply now, asking it with the event", () => {
    const event = { key: "Enter" };
    const seen = [];
    const later = binding(["Enter"]);
    const bindings = [binding(["Enter"], { when: (e) => { seen.push(e); return false; } }), later];
    assert.equal(bindingFor(bindings, "Enter", event, false), later);
    assert.deepEqual(seen, [event]);
  });

  test("in a text box only bindings marked inText apply", () => {
    const plain = binding(["Escape"]);
    const inText = binding(["Escape"], { inText: true });
    assert.equal(bindingFor([plain, inText], "Escape", {}, true), inText);
    assert.equal(bindingFor([plain], "Escape", {}, true), null);
    assert.equal(bindingFor([plain, inText], "Escape", {}, false), plain);
  });

  test("a key nothing is bound to runs nothing, and asks no binding", () => {
    const bindings = [binding(["j"], { when: () => assert.fail("asked") })];
    assert.equal(bindingFor(bindings, "k", {}, false), null);
  });
});

describe("arrowStep", () => {
  test("pans against the arrow by the step", () => {
    assert.deepEqual(arrowStep("ArrowLeft", 0.1), [0.1, 0]);
    assert.deepEqual(arrowStep("ArrowRight", 0.1), [-0.1, 0]);
    assert.deepEqual(arrowStep("ArrowUp", 0.15), [0, 0.15]);
    assert.deepEqual(arrowStep("ArrowDown", 0.15), [0, -0.15]);
  });
});

describe("answerKeyGroups", () => {
  const rubric = [{ key: "0", label: "Poor" }, { key: "1", label: "Weak" }, { key: "2", label: "Good" }, { key: "3", label: "Excellent" }];
  const overall = [{ key: "1", label: "A significantly better" }, { key: "6", label: "B significantly better" }];

  test("questions with the same buttons share one entry, in the order each first appears, options as given", () => {
    const groups = answerKeyGroups([
      { id: "text_faithfulness", label: "Faithful", options: rubric },
      { id: "overall", label: "Overall preference", oriented: true, options: overall },
      { id: "image_quality", label: "Image quality", options: rubric },
    ]);
    assert.deepEqual(groups, [
      { ids: ["text_faithfulness", "image_quality"], labels: ["Faithful", "Image quality"], oriented: false, options: rubric },
      { ids: ["overall"], labels: ["Overall preference"], oriented: true, options: overall },
    ]);
  });

  test("the same keys with other labels, or another order, are another entry; a question without options none", () => {
    const tie = [{ key: "1", label: "A" }, { key: "2", label: "Tie" }, { key: "3", label: "B" }];
    const reordered = [{ key: "1", label: "A" }, { key: "2", label: "B" }, { key: "3", label: "Tie" }];
    const groups = answerKeyGroups([
      { id: "p", label: "P", options: tie }, { id: "q", label: "Q", options: reordered }, { id: "r", label: "R", options: [] },
    ]);
    assert.deepEqual(groups.map((group) => group.ids), [["p"], ["q"]]);
  });
});
