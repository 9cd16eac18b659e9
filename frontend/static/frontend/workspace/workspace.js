// The annotation page: wires the form, the viewing aids, autosaved drafts, submit, skip, report and next.
//
// The page's content is one mounted pair: `mount` wires it and returns `unmount`. While the rater works, the next
// pair's page is prepared ahead (next.js: no lease); "Next pair" shows it at once and claims in the same moment, and
// the page stays only if the claim gave that very pair (else the claimed pair's page is loaded, or the queue).
import { send } from "./api.js";
import { draftFailure, refusalErrors } from "./answers.js";
import { ConsistencyPrompt, checkAnswers } from "./consistency.js";
import { bind, clearBindings, renderHelp } from "./keys.js";
import { RatingForm, answerKeys, bindAnswerKeys } from "./form.js";
import { QuestionMap } from "./panel.js";
import { LeaseClock } from "./lease.js";
import { VisibleTimer } from "./media.js";
import { prepareNext } from "./next.js";
import { wireReport } from "./report.js";
import { RECONNECTING, withRetry } from "./retry.js";
import { mergeCoverage, namedSides, shortSides } from "./sync.js";
import { wireViewing } from "./viewing.js";

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const configOf = (root) => JSON.parse($("#workspace-config", root).textContent);
const idle = window.requestIdleCallback || ((run) => setTimeout(run, 200));
const withId = (patterns, id) => Object.fromEntries(Object.entries(patterns).map(([name, url]) => [name, url.replace("{assignment}", id)]));
// What a page that is being left answers: nothing, ever (its navigation is under way).
const LEAVING = new Promise(() => {});
// The document's own Content-Security-Policy nonce (a prepared page carries the nonce of its own response).
const STYLE_NONCE = configOf(document).style_nonce;
let mounts = 0;
let page = null;

// A form post to `url` (the claim of a browser with no prepared page: the server answers with the page or the queue).
function post(url) {
  const form = document.createElement("form");
  form.method = "post";
  form.action = url;
  form.append($("[name=csrfmiddlewaretoken]").cloneNode());
  document.body.append(form);
  form.submit();
}

// "Next pair" with the next page prepared: the claim goes out, the prepared page is shown in the same moment.
function show(prepared) {
  const claim = send("POST", prepared.config.urls.claim);
  page.unmount();
  $("main").replaceWith(prepared.main);
  document.title = prepared.title;
  page = mount(prepared.config, { claim });
}

function mount(config, { claim = null } = {}) {
  const lifetime = new AbortController();
  const { signal } = lifetime;
  clearBindings();
  // "Next pair" is answered with the page itself (no redirect): the address bar names this pair's own page, so that a
  // reload, a bookmark or back comes to it by GET.
  if (config.urls.page && location.pathname !== config.urls.page) history.replaceState(null, "", config.urls.page);
  const form = new RatingForm($("[data-rating-form]"));
  const timer = new VisibleTimer(config.assignment && `concord:time:${config.assignment}`, { signal });
  const saveState = $("[data-save-state]");
  const submitButton = $("[data-submit]");
  const dialogs = {
    help: $("#shortcuts"), instructions: $("#instructions"), skip: $("#skip-dialog"), report: $("#report-dialog"),
    inspector: $("#inspector"), consistency: $("#consistency-dialog"),
  };
  // rating → (checking →) submitting → done; rating → expired (the lease ran out) → rating (claimed again)
  let phase = "rating";

  // Consistency warnings (consistency.js): before a submit the server's check of the answers; when they contradict each
  // other, a prompt says what contradicts and the rater goes back (Esc) or submits as is (Enter), which the
  // submission records (confirm_warnings).
  const consistency = new ConsistencyPrompt(dialogs.consistency, {
    form,
    onConfirm: () => submit({ confirmed: true }),
    onBack: () => setSaveState("Not submitted: look at the outlined answers, then submit again", "dirty"),
  });

  // One idempotency key per assignment, kept across reloads, so any retry names the same submission.
  function submitKey() {
    const name = `concord:submit-key:${config.assignment}`;
    let key = sessionStorage.getItem(name);
    if (!key) {
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      key = `${config.assignment}-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
      sessionStorage.setItem(name, key);
    }
    return key;
  }

  // Drafts: saved a moment after each change, and once more when the page is hidden or left.
  let saveTimer = null;
  let dirty = false;
  let draftTries = 0; // failed tries of the draft being sent again (0: none pending)
  function setSaveState(text, state) {
    saveState.textContent = text;
    saveState.dataset.state = state;
  }
  // While the server cannot answer (core/db_faults.py's 503, the network): the line says so, the answers stay.
  const reconnecting = (what) => ({
    sleep, signal,
    onWait: ({ waitMs }) => setSaveState(`${RECONNECTING}; ${what} again in ${Math.ceil(waitMs / 1000)} s`, "reconnecting"),
  });
  function reconnected() {
    if (saveState.dataset.state === "reconnecting") setSaveState("Connected again; answers save as you go", "clean");
  }

  // The lease (lease.js): counts down in the header, renews while the rater works, and when it runs out the page says
  // so at once, keeps the answers on this device, disables Submit and offers "Claim again" or "Next pair".
  const leaseElement = $("[data-lease]");
  const leaseOver = $("[data-lease-over]");
  const keptDraft = () => `concord:draft:${config.assignment}`;
  const leaseClock = leaseElement && new LeaseClock(leaseElement, {
    leaseMinutes: config.lease_minutes,
    renew: () => send("POST", config.urls.renewal, {}),
    onExpired: leaseRanOut,
    signal,
  });
  function showLease(expiresAt) {
    if (leaseClock && config.assignment) leaseClock.set(expiresAt || leaseElement.dataset.expiresAt);
  }
  function leaseRanOut() {
    if (phase === "done" || phase === "expired") return;
    phase = "expired";
    consistency.dismiss();
    clearTimeout(saveTimer);
    try { localStorage.setItem(keptDraft(), JSON.stringify(form.values())); } catch { /* storage full or off: the server's draft stays */ }
    if (leaseClock && !leaseClock.over) leaseClock.expire();
    submitButton.disabled = true;
    setSaveState("Submit is off: the pair is no longer yours", "error");
    $("[data-lease-over-error]", leaseOver).hidden = true;
    $("[data-reclaim]", leaseOver).hidden = false;
    leaseOver.hidden = false;
    $("[data-reclaim]", leaseOver).focus();
  }
  async function reclaim() {
    const result = await send("POST", config.urls.renewal, { reclaim: true });
    if (signal.aborted) return;
    if (!result.ok) {
      const error = $("[data-lease-over-error]", leaseOver);
      error.textContent = result.data?.message || `Not claimed again (status ${result.status}).`;
      error.hidden = false;
      if (result.status === 409) $("[data-reclaim]", leaseOver).hidden = true; // the slot is gone: only "Next pair" is left
      return;
    }
    phase = "rating";
    leaseOver.hidden = true;
    submitButton.disabled = false;
    localStorage.removeItem(keptDraft());
    leaseClock?.set(result.data.expires_at);
    setSaveState("The pair is yours again; answers save as you go", "clean");
    dirty = true;
    saveDraft();
  }
  $("[data-reclaim]", leaseOver).addEventListener("click", reclaim);
  $("[data-lease-next]", leaseOver).addEventListener("click", () => next());
  showLease();

  // A page prepared ahead holds no lease yet: it claims as it is shown (with `claim` already sent, or now for a page
  // opened at its address) and stays only if the claim gave this very pair. The rater can look and rate meanwhile;
  // drafts, submit and skip wait for it.
  const claimed = config.assignment ? Promise.resolve() : confirmClaim(claim || send("POST", config.urls.claim));
  async function confirmClaim(request) {
    // The claim already sent first, then the same claim again while the server cannot answer (it resumes the pair).
    let first = request;
    const result = await withRetry(() => {
      const sent = first || send("POST", config.urls.claim);
      first = null;
      return sent;
    }, reconnecting("claiming"));
    if (signal.aborted) return LEAVING;
    if (result.status === 204) {
      location.assign(config.urls.queue); // nothing is left: the queue says so
      return LEAVING;
    }
    if (!result.ok) {
      post(config.urls.next); // the server claims once more and shows the pair, or the queue with the reason
      return LEAVING;
    }
    reconnected();
    if (result.data.pair_key !== config.pair_key) {
      location.replace(withId(config.assignment_urls, result.data.assignment).page); // another pair: its own page
      return LEAVING;
    }
    config.assignment = result.data.assignment;
    config.urls = { ...config.urls, ...withId(config.assignment_urls, config.assignment) };
    $("[data-workspace]").dataset.assignment = String(config.assignment);
    history.replaceState(null, "", config.urls.page);
    timer.keep(`concord:time:${config.assignment}`);
    showLease(result.data.expires_at);
    refreshProgress();
  }

  // A prepared page's progress line is written once its claim is answered (it would be one submission old).
  async function refreshProgress() {
    const line = $("[data-progress]");
    if (!line) return;
    const response = await fetch(config.urls.stats, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!response.ok) return;
    const progress = (await response.json()).campaigns[0];
    if (progress && !signal.aborted) {
      line.textContent = `${progress.submitted_today} today · ${progress.submitted} in all · ${progress.pairs_complete}/${progress.pairs_total} pairs complete`;
    }
  }

  async function saveDraft({ keepalive = false } = {}) {
    clearTimeout(saveTimer);
    if (!dirty || phase !== "rating") return;
    await claimed;
    dirty = false;
    if (!draftTries) setSaveState("Saving…", "saving");
    let result;
    try {
      result = await send("PUT", config.urls.draft, { values: form.values() }, { keepalive });
    } catch (error) {
      result = { ok: false, status: 0, data: { message: error.message } };
    }
    if (result.ok) {
      showLease(result.data?.expires_at);
      if (phase === "rating") setSaveState(`Draft saved ${new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`, "saved");
      // Answers changed while a try was on its way were left to it: they go now.
      if (draftTries && dirty) saveTimer = setTimeout(() => saveDraft(), config.autosave_ms || 700);
      draftTries = 0;
      return;
    }
    dirty = true;
    draftTries += 1;
    const failure = draftFailure(result, draftTries);
    setSaveState(failure.message, failure.state);
    if (failure.retryMs) saveTimer = setTimeout(() => saveDraft(), failure.retryMs);
    else draftTries = 0;
  }

  form.onChange = () => {
    dirty = true;
    if (draftTries) return; // a try is pending: it sends the answers as they are then
    setSaveState("Unsaved changes", "dirty");
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => saveDraft(), config.autosave_ms || 700);
  };
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") saveDraft({ keepalive: true }); }, { signal });
  window.addEventListener("pagehide", () => saveDraft({ keepalive: true }), { signal });

  async function contradictions(values) {
    phase = "checking";
    await claimed;
    const found = await checkAnswers(() => send("POST", config.urls.check, { values }));
    if (phase !== "checking" || signal.aborted) return null; // the lease ran out meanwhile, or the page was left
    phase = "rating";
    return found;
  }

  // Submit: validated here first, checked for contradictions, sent with the one key, tried again with it while the
  // server cannot answer (for up to GIVE_UP_MS), never twice at once.
  async function submit({ confirmed = false } = {}) {
    if (phase !== "rating") return;
    const errors = form.validate();
    if (Object.keys(errors).length) {
      form.showErrors(errors);
      setSaveState("Some answers are missing; see the messages in red", "error");
      return;
    }
    // A warning first (a second submit sends anyway: the server's refusal, media_not_played, stays the rule).
    const short = shortPlayback();
    if (short.length && short.join() !== playbackWarned) {
      playbackWarned = short.join();
      const named = namedSides(short);
      setSaveState(`Play ${named} to the end before submitting; this campaign requires it.`, "error");
      return;
    }
    if (config.consistency_check && !confirmed) {
      const found = await contradictions(form.values());
      if (!found) return;
      if (found.warnings.length) {
        setSaveState("Check the warning before submitting", "dirty");
        consistency.show(found);
        return;
      }
    }
    phase = "submitting";
    clearTimeout(saveTimer);
    draftTries = 0; // the submit carries the answers; a refused one leaves the drafts to the next change
    submitButton.disabled = true;
    setSaveState("Submitting…", "saving");
    await claimed;
    const key = submitKey();
    const body = {
      values: form.values(), time_on_item_ms: timer.elapsedMs(), idempotency_key: key, media_played: mediaPlayed(),
      confirm_warnings: confirmed,
    };
    const result = await withRetry(
      () => send("POST", config.urls.submit, body, { headers: { "Idempotency-Key": key } }), reconnecting("submitting"),
    );
    if (signal.aborted) return;
    if (result.ok) return done();
    phase = "rating";
    if (result.status === 409 && result.data?.code === "lease_expired") return leaseRanOut();
    submitButton.disabled = false;
    if (result.status >= 400 && result.status < 500 && !result.gaveUp) {
      form.showErrors(refusalErrors(result));
      setSaveState(result.data?.message || "Not submitted", "error");
      return;
    }
    const why = result.gaveUp ? "Could not reach the server" : `Not submitted (status ${result.status})`;
    setSaveState(`${why}; your answers are kept. Press Ctrl+Enter to try again.`, "error");
  }

  function done() {
    phase = "done";
    leaseClock?.stop();
    localStorage.removeItem(keptDraft());
    timer.pause();
    timer.clear();
    sessionStorage.removeItem(`concord:submit-key:${config.assignment}`);
    sessionStorage.removeItem(`concord:played:${config.assignment}`);
    form.lock();
    setSaveState("Submitted", "saved");
    $("[data-actions]").hidden = true;
    const panel = $("[data-done]");
    panel.hidden = false;
    $("[data-next]", panel).focus();
  }

  // Next pair: the prepared page when there is one, else the form's POST (the server claims and answers with the page).
  let prepared = null;
  const nextForm = $("[data-next-form]");
  nextForm.addEventListener("submit", (event) => {
    if (!prepared) return;
    event.preventDefault();
    show(prepared);
  });
  function next() {
    nextForm.requestSubmit();
  }

  async function skip(reason) {
    await claimed;
    const result = await send("POST", config.urls.skip, { reason });
    if (!result.ok) {
      $("[data-skip-error]").textContent = result.data?.message || `Not skipped (status ${result.status}).`;
      $("[data-skip-error]").hidden = false;
      return;
    }
    phase = "done";
    leaseClock?.stop();
    localStorage.removeItem(keptDraft());
    timer.clear();
    next();
  }

  function skipReason() {
    const picked = $("input[name=skip-reason]:checked", dialogs.skip);
    if (!picked) return "";
    if (picked.value !== "other") return picked.value;
    const text = $("[data-skip-other]", dialogs.skip).value.trim();
    return text ? `other: ${text}` : "";
  }

  function confirmSkip() {
    const reason = skipReason();
    if (!reason) {
      $("[data-skip-error]").textContent = "Choose a reason (or write one for “other”).";
      $("[data-skip-error]").hidden = false;
      return;
    }
    skip(reason);
  }

  const anyDialog = () => Object.values(dialogs).some((d) => d && d.open);
  const rating = () => phase === "rating" && !anyDialog();
  function toggleDialog(dialog) {
    if (dialog.open) dialog.close();
    else {
      Object.values(dialogs).forEach((d) => d && d.open && d.close());
      dialog.showModal();
      dialog.scrollTop = 0; // from its title, though focus went to a button further down
    }
  }

  // Shortcuts. Choices: the key shown on each option applies to the highlighted row.
  bind(["?"], { label: "Show or hide these shortcuts", when: () => !dialogs.skip.open, run: () => toggleDialog(dialogs.help) });
  if (dialogs.instructions) bind(["i"], { label: "Show or hide the instructions", when: () => !dialogs.skip.open, run: () => toggleDialog(dialogs.instructions) });
  bindAnswerKeys(form, rating);
  bind(["Ctrl+Enter"], { group: "Rating", label: "Submit", inText: true, when: rating, run: submit });
  bind(["x"], { group: "Rating", label: "Skip this pair (asks for a reason)", when: rating, run: () => toggleDialog(dialogs.skip) });
  bind(["g"], { label: "Back to the queue (a draft is kept)", when: () => !anyDialog(), run: () => $("[data-queue-link]").click() });
  bind(["Enter", "n"], { group: "Rating", label: "Next pair, once submitted", when: () => phase === "done" && !anyDialog(), run: next });
  bind(["1", "2", "3", "4", "5", "6", "7", "8", "9"], {
    when: () => dialogs.skip.open, run: (event) => {
      const option = $(`input[name=skip-reason][data-key="${event.key}"]`, dialogs.skip);
      if (!option) return;
      option.checked = true;
      if (option.value === "other") $("[data-skip-other]", dialogs.skip).focus();
    },
  });
  bind(["Enter", "Ctrl+Enter"], { inText: true, when: () => dialogs.skip.open, run: confirmSkip });
  // Report a problem (report.js): stored for the curator, and the pair is given back as a skip gives it.
  wireReport({
    dialog: dialogs.report, opener: $("[data-report-open]"), url: () => config.urls.report, ready: claimed, when: rating,
    toggle: toggleDialog,
    onReported: () => {
      phase = "done";
      leaseClock?.stop();
      localStorage.removeItem(keptDraft());
      timer.clear();
      next();
    },
  });
  if (config.consistency_check) {
    // A press held down from the submit repeats: only a new press confirms.
    bind(["Enter"], {
      group: "Rating", label: "Submit as is, despite a consistency warning", when: () => consistency.open,
      run: (event) => { if (!event.repeat) consistency.confirm(); },
    });
    bind(["Ctrl+Enter"], { inText: true, when: () => consistency.open, run: () => {} });
  }

  submitButton.addEventListener("click", submit);
  $("[data-skip-open]").addEventListener("click", () => toggleDialog(dialogs.skip));
  $("[data-skip-confirm]").addEventListener("click", confirmSkip);
  $$("[data-dialog-close]").forEach((button) => button.addEventListener("click", () => button.closest("dialog").close()));
  $$("[data-open-dialog]").forEach((button) => button.addEventListener("click", () => toggleDialog($(`#${button.dataset.openDialog}`))));

  // The pair's viewing aids and their keys (zoom, comparison, panes, prompt, steps, inspector, media).
  const { playback, models } = wireViewing({ pair: $(".pair"), inspectorDialog: dialogs.inspector, when: rating, styleNonce: STYLE_NONCE });

  // The share heard or watched, sent with the submit. Kept in the tab's session storage with the draft (the
  // browser's record of what was played does not survive a reload): the larger of the two counts.
  const playedKey = () => `concord:played:${config.assignment}`;
  function mediaPlayed() {
    if (!playback.active) return null;
    let kept = {};
    try { kept = JSON.parse(sessionStorage.getItem(playedKey()) || "{}"); } catch { kept = {}; }
    const now = playback.coverage();
    const merged = mergeCoverage(now, kept);
    sessionStorage.setItem(playedKey(), JSON.stringify(merged));
    return merged;
  }
  let playbackWarned = "";
  function shortPlayback() {
    if (!config.requires_full_playback || !playback.active) return [];
    return shortSides(mediaPlayed(), config.full_playback_share);
  }
  if (playback.active) {
    for (const track of playback.tracks) for (const event of ["pause", "ended"]) track.media.addEventListener(event, () => mediaPlayed());
    window.addEventListener("pagehide", () => mediaPlayed(), { signal });
  }

  const questionMap = new QuestionMap(form, $("[data-one-at-a-time]"), $("[data-question-map]"));
  bind(["f"], { group: "Rating", label: "One question at a time, or the whole form", when: rating, run: () => questionMap.set(!questionMap.on) });

  renderHelp($("[data-shortcut-list]"), { answers: answerKeys(form.form) });
  form.focusRow(form.firstOpenRow(), { scroll: false });
  if (config.show_instructions && dialogs.instructions) dialogs.instructions.showModal();

  // Ready once the pair is this rater's: at once for a claimed page, after the claim for a page prepared ahead. Then,
  // while the rater works, the next pair's page is prepared (when the browser is idle).
  claimed.then(() => {
    if (signal.aborted) return;
    document.body.dataset.workspaceReady = String(++mounts);
    const start = () => idle(() => prepareNext(config.urls.next).then((ready) => {
      if (!ready || signal.aborted) return;
      prepared = ready;
      document.body.dataset.nextPrefetched = String(ready.images);
    }).catch(() => {}));
    if (document.readyState === "complete") start(); else window.addEventListener("load", start, { once: true, signal });
  });

  return {
    unmount() {
      lifetime.abort();
      clearTimeout(saveTimer);
      clearBindings();
      for (const media of $$("audio, video")) media.pause();
      models?.dispose(); // the 3D views' WebGL contexts: a browser keeps only a few alive
      delete document.body.dataset.workspaceReady;
      delete document.body.dataset.nextPrefetched;
    },
  };
}

page = mount(configOf(document));
