// The report form's rules without a page (report.js's reportBody), and its `!` key through keys.js's one listener,
// the page stood in for by the little they touch.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

let keydown = null;
class FakeElement {
  constructor(props) { Object.assign(this, props); }
}
globalThis.HTMLElement = FakeElement;
globalThis.document = { addEventListener: (type, listener) => { if (type === "keydown") keydown = listener; } };

const { REPORT_NOTE_MAX, reportBody, wireReport } = await import("../../frontend/static/frontend/workspace/report.js");
const { boundKeys } = await import("../../frontend/static/frontend/workspace/keys.js");

describe("reportBody", () => {
  test("sends the reason and the note, trimmed", () => {
    assert.deepEqual(reportBody("media_broken", "  grey image \n"), { body: { reason: "media_broken", note: "grey image" } });
    assert.deepEqual(reportBody("cannot_judge", ""), { body: { reason: "cannot_judge", note: "" } });
  });

  test("asks for a reason, and for a note when the reason is other", () => {
    assert.equal(reportBody("", "a note").error, "Choose what is wrong with the pair.");
    assert.equal(reportBody("other", "   ").error, "Say what is wrong (the reason is “other”).");
    assert.ok(reportBody("other", "the prompt names a model").body);
  });

  test("refuses a note over the server's cap, saying how long it is", () => {
    assert.ok(reportBody("other", "x".repeat(REPORT_NOTE_MAX)).body);
    assert.equal(reportBody("other", "x".repeat(REPORT_NOTE_MAX + 1)).error,
      `Keep the note to ${REPORT_NOTE_MAX} characters (it has ${REPORT_NOTE_MAX + 1}).`);
  });
});

describe("the ! key", () => {
  test("opens the dialog while rating, and only then", () => {
    const fake = () => ({ addEventListener() {}, hidden: true, textContent: "", value: "", focus() {} });
    const dialog = { open: false, querySelector: () => fake() };
    const opened = [];
    let rating = true;
    wireReport({ dialog, opener: fake(), url: () => "/api/v1/assignments/1/report/", ready: Promise.resolve(),
      when: () => rating, toggle: (d) => opened.push(d), onReported() {} });
    assert.ok(boundKeys().includes("!"));
    const press = () => {
      const event = { key: "!", altKey: false, ctrlKey: false, metaKey: false, shiftKey: true, target: new FakeElement({}),
        defaultPrevented: false, isComposing: false, preventDefault() { this.defaultPrevented = true; } };
      keydown(event);
      return event;
    };
    assert.equal(press().defaultPrevented, true);
    assert.deepEqual(opened, [dialog]);
    rating = false;
    assert.equal(press().defaultPrevented, false);
    assert.equal(opened.length, 1);
  });
});
