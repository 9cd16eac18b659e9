// Trying again while the server cannot answer: a lost database (503 with Retry-After, core/db_faults.py), a proxy
// with no app behind it (502, 504), a network error (status 0), the rate limit (429) and a claim that met another at
// the same moment (409 claim_conflict). Each try is the same request (the submit's one Idempotency-Key, the draft's
// whole answers, the claim that resumes the open pair), so trying again can store nothing twice. Waits double from
// 1 s to at most 15 s, never shorter than the server's Retry-After, with a little jitter so that raters whose
// requests failed together do not all come back in the same second; after GIVE_UP_MS the caller says so instead.
// Nothing here touches the page: `sleep` and `now` are given, so the tests run the clock.

export const FIRST_MS = 1000;
export const MAX_MS = 15_000;
export const GIVE_UP_MS = 5 * 60_000;
const RETRY_AFTER_MAX_S = 60; // a longer Retry-After is waited out in several tries
const TRANSIENT = new Set([0, 429, 502, 503, 504]);
export const RECONNECTING = "Reconnecting… your answer is kept";

// Whether the failed `result` ({ status, data }) may succeed when sent again unchanged. Any other 4xx is a refusal
// (the lease ended, the pair was skipped, an answer is missing): shown, never sent again.
export function retryable(result) {
  return TRANSIENT.has(result.status) || (result.status === 409 && result.data?.code === "claim_conflict");
}

// The seconds a Retry-After header asks for (its delay-seconds form; the HTTP-date form too), else null.
export function retryAfterSeconds(header, nowMs = Date.now()) {
  if (header === null || header === undefined || header === "") return null;
  const seconds = /^\s*\d+\s*$/.test(header) ? Number(header) : (Date.parse(header) - nowMs) / 1000;
  return Number.isFinite(seconds) ? Math.max(0, seconds) : null;
}

// The wait before try `attempt` + 1, after `attempt` failed tries: 1, 2, 4, 8, 15, 15 … s (±20 % jitter, still at
// most MAX_MS), and never less than the server's Retry-After (at most a minute of it).
export function delayMs(attempt, retryAfterS = null, random = Math.random) {
  const backoff = Math.min(MAX_MS, FIRST_MS * 2 ** Math.max(0, attempt - 1));
  const jittered = Math.min(MAX_MS, Math.round(backoff * (0.8 + 0.4 * random())));
  const floor = retryAfterS > 0 ? Math.min(retryAfterS, RETRY_AFTER_MAX_S) * 1000 : 0;
  return Math.max(floor, jittered);
}

// `request()` (a promise of { ok, status, data, retryAfter }) until it succeeds, is refused, or GIVE_UP_MS have
// passed; a thrown error (the network) counts as status 0. `onWait({ attempt, waitMs, result })` runs before each
// wait. Answers the last result, with `gaveUp: true` when it stopped only for the time.
export async function withRetry(request, { onWait = () => {}, sleep, now = Date.now, giveUpMs = GIVE_UP_MS, random = Math.random, signal = null } = {}) {
  const started = now();
  for (let attempt = 1; ; attempt += 1) {
    let result;
    try {
      result = await request();
    } catch (error) {
      result = { ok: false, status: 0, data: { message: error.message }, retryAfter: null };
    }
    if (result.ok || !retryable(result) || signal?.aborted) return result;
    const waitMs = delayMs(attempt, result.retryAfter, random);
    if (now() + waitMs - started > giveUpMs) return { ...result, gaveUp: true };
    onWait({ attempt, waitMs, result });
    await sleep(waitMs);
    if (signal?.aborted) return result;
  }
}
