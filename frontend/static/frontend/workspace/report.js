// Report a problem with the pair: `!` (or the button) opens a short form — a reason from the list, a note — and
// sending it tells the curator, gives the pair back as a skip does, and moves on to the next pair. The answer comes
// back in My work. `reportBody` is pure (tests/js/report.test.mjs); `wireReport` binds the page's dialog.
import { send } from "./api.js";
import { bind } from "./keys.js";

export const REPORT_NOTE_MAX = 1000;

// The report's body for the reason picked ("" when none) and the note written; `error` instead when it cannot go yet.
export function reportBody(reason, note) {
  const text = (note || "").trim();
  if (!reason) return { error: "Choose what is wrong with the pair." };
  if (reason === "other" && !text) return { error: "Say what is wrong (the reason is “other”)." };
  if (text.length > REPORT_NOTE_MAX) return { error: `Keep the note to ${REPORT_NOTE_MAX} characters (it has ${text.length}).` };
  return { body: { reason, note: text } };
}

// Wire the report dialog. `url()` is the report API of the pair shown (known once it is claimed: `ready` resolves
// then); `when()` says whether `!` may open it now; `toggle(dialog)` opens it as the page's other dialogs open;
// `onReported(report)` runs once the server stored the report (the page then moves on).
export function wireReport({ dialog, opener, url, ready, when, toggle, onReported }) {
  const $ = (selector) => dialog.querySelector(selector);
  const error = $("[data-report-error]");
  const note = $("[data-report-note]");
  const sendButton = $("[data-report-send]");
  let sending = false;

  function say(message) {
    error.textContent = message;
    error.hidden = !message;
  }

  async function submit() {
    if (sending) return;
    const picked = dialog.querySelector("input[name=report-reason]:checked");
    const { body, error: refused } = reportBody(picked?.value || "", note.value);
    if (refused) return say(refused);
    sending = true;
    sendButton.disabled = true;
    say("");
    try {
      await ready;
      const result = await send("POST", url(), body);
      if (!result.ok) return say(result.data?.message || `Not sent (status ${result.status}).`);
      dialog.close();
      onReported(result.data);
    } catch {
      say("Could not reach the server; your report is kept here. Try again.");
    } finally {
      sending = false;
      sendButton.disabled = false;
    }
  }

  function pick(event) {
    const option = dialog.querySelector(`input[name=report-reason][data-key="${event.key}"]`);
    if (!option) return;
    option.checked = true;
    say("");
    if (option.value === "other") note.focus();
  }

  bind(["!"], { group: "Rating", label: "Report a problem with this pair (asks what is wrong)", when, run: () => toggle(dialog) });
  bind(["1", "2", "3", "4", "5", "6", "7", "8", "9"], { when: () => dialog.open, run: pick });
  bind(["Enter"], { when: () => dialog.open, run: submit });
  bind(["Ctrl+Enter"], { inText: true, when: () => dialog.open, run: submit });
  bind(["n"], { when: () => dialog.open, run: () => note.focus() });
  opener.addEventListener("click", () => toggle(dialog));
  sendButton.addEventListener("click", submit);
}
