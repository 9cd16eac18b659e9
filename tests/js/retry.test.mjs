// Trying again while the server cannot answer: which failures are tried again, the backoff (1 s doubling to 15 s,
// never under Retry-After), giving up after a few minutes, and the submit sent through api.js with the same
// Idempotency-Key on every try.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  FIRST_MS, GIVE_UP_MS, MAX_MS, delayMs, retryAfterSeconds, retryable, withRetry,
} from "../../frontend/static/frontend/workspace/retry.js";

const middle = () => 0.5; // no jitter

// A clock that only moves when slept on; `waits` records every sleep.
function clock() {
  const state = { t: 0, waits: [] };
  return {
    state,
    now: () => state.t,
    sleep: async (ms) => { state.waits.push(ms); state.t += ms; },
  };
}

describe("retryable", () => {
  test("the server's 'try again' answers and the network are tried again", () => {
    for (const status of [0, 429, 502, 503, 504]) assert.equal(retryable({ status, data: null }), true, status);
    assert.equal(retryable({ status: 409, data: { code: "claim_conflict" } }), true);
  });

  test("a refusal, success and a server error are not", () => {
    for (const status of [200, 400, 403, 404, 413, 500]) assert.equal(retryable({ status, data: null }), false, status);
    assert.equal(retryable({ status: 409, data: { code: "lease_expired" } }), false);
    assert.equal(retryable({ status: 409, data: null }), false);
  });
});

describe("delayMs", () => {
  test("doubles from 1 s and stays at 15 s", () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 20].map((n) => delayMs(n, null, middle)), [1000, 2000, 4000, 8000, 15000, 15000, 15000]);
    assert.equal(FIRST_MS, 1000);
    assert.equal(MAX_MS, 15000);
  });

  test("jitter stays within a fifth either way, and under the cap", () => {
    assert.equal(delayMs(1, null, () => 0), 800);
    assert.equal(delayMs(1, null, () => 1), 1200);
    assert.equal(delayMs(10, null, () => 1), MAX_MS);
  });

  test("never shorter than Retry-After, which counts for at most a minute", () => {
    assert.equal(delayMs(1, 3, middle), 3000);
    assert.equal(delayMs(4, 3, middle), 8000);
    assert.equal(delayMs(1, 600, middle), 60_000);
    assert.equal(delayMs(1, 0, middle), 1000);
  });
});

describe("retryAfterSeconds", () => {
  test("reads seconds and HTTP dates", () => {
    assert.equal(retryAfterSeconds("3"), 3);
    assert.equal(retryAfterSeconds(" 120 "), 120);
    const now = Date.parse("2026-01-01T00:00:00Z");
    assert.equal(retryAfterSeconds("Thu, 01 Jan 2026 00:00:05 GMT", now), 5);
    assert.equal(retryAfterSeconds("Wed, 31 Dec 2025 23:59:00 GMT", now), 0);
  });

  test("nothing, or nonsense, is null", () => {
    for (const header of [null, undefined, "", "soon"]) assert.equal(retryAfterSeconds(header), null);
  });
});

describe("withRetry", () => {
  test("tries again after each 503 and answers the success", async () => {
    const { state, now, sleep } = clock();
    const answers = [{ ok: false, status: 503, retryAfter: 3 }, { ok: false, status: 503, retryAfter: 3 }, { ok: true, status: 200, data: { id: 1 } }];
    const waited = [];
    const result = await withRetry(async () => answers.shift(), { now, sleep, random: middle, onWait: ({ attempt, waitMs }) => waited.push([attempt, waitMs]) });
    assert.deepEqual(result, { ok: true, status: 200, data: { id: 1 } });
    assert.deepEqual(state.waits, [3000, 3000]);
    assert.deepEqual(waited, [[1, 3000], [2, 3000]]);
  });

  test("a network error (a thrown fetch) counts as status 0 and is tried again", async () => {
    const { state, now, sleep } = clock();
    let calls = 0;
    const result = await withRetry(async () => {
      calls += 1;
      if (calls < 3) throw new TypeError("Failed to fetch");
      return { ok: true, status: 200 };
    }, { now, sleep, random: middle });
    assert.equal(result.ok, true);
    assert.deepEqual(state.waits, [1000, 2000]);
  });

  test("a refusal is answered at once, never sent again", async () => {
    const { state, now, sleep } = clock();
    let calls = 0;
    const refused = { ok: false, status: 400, data: { code: "invalid_answer" } };
    const result = await withRetry(async () => { calls += 1; return refused; }, { now, sleep });
    assert.equal(result, refused);
    assert.equal(calls, 1);
    assert.deepEqual(state.waits, []);
  });

  test("gives up once the next wait would pass the give-up time", async () => {
    const { state, now, sleep } = clock();
    let calls = 0;
    const result = await withRetry(async () => { calls += 1; return { ok: false, status: 503, retryAfter: 3 }; }, { now, sleep, random: middle });
    assert.equal(result.gaveUp, true);
    assert.equal(result.status, 503);
    const waited = state.waits.reduce((a, b) => a + b, 0);
    assert.ok(waited <= GIVE_UP_MS && waited > GIVE_UP_MS - MAX_MS, waited);
    assert.equal(calls, state.waits.length + 1);
    assert.ok(calls > 20, "a few minutes of tries"); // 3, 3, 4, 8, then 15 s each
  });

  test("stops when the page is left", async () => {
    const { now } = clock();
    const lifetime = new AbortController();
    let calls = 0;
    const result = await withRetry(async () => {
      calls += 1;
      return { ok: false, status: 503 };
    }, { now, sleep: async () => lifetime.abort(), signal: lifetime.signal });
    assert.equal(result.status, 503);
    assert.equal(calls, 1);
  });
});

describe("the submit through api.js", () => {
  test("every try carries the same Idempotency-Key and waits out Retry-After", async () => {
    const seen = [];
    const answers = [
      { status: 503, headers: { "Retry-After": "3" }, body: { code: "database_unavailable", extra: { retry_after: 3 } } },
      { status: 0 }, // the network: fetch rejects
      { status: 503, headers: { "Retry-After": "3" }, body: { code: "database_unavailable" } },
      { status: 200, headers: {}, body: { annotation: 7 } },
    ];
    globalThis.document = { querySelector: () => ({ value: "csrf-token" }) };
    globalThis.fetch = async (url, init) => {
      seen.push({ url, key: init.headers["Idempotency-Key"], csrf: init.headers["X-CSRFToken"], body: JSON.parse(init.body) });
      const answer = answers.shift();
      if (answer.status === 0) throw new TypeError("Failed to fetch");
      return new Response(JSON.stringify(answer.body), { status: answer.status, headers: answer.headers });
    };
    try {
      const { send } = await import("../../frontend/static/frontend/workspace/api.js");
      const { state, now, sleep } = clock();
      const body = { values: { overall: 5 }, idempotency_key: "12-abc" };
      const result = await withRetry(() => send("POST", "/api/v1/assignments/12/submit/", body, { headers: { "Idempotency-Key": "12-abc" } }),
        { now, sleep, random: middle });
      assert.equal(result.ok, true);
      assert.deepEqual(result.data, { annotation: 7 });
      assert.equal(seen.length, 4);
      assert.deepEqual(new Set(seen.map((s) => s.key)), new Set(["12-abc"]));
      assert.ok(seen.every((s) => s.body.idempotency_key === "12-abc" && s.csrf === "csrf-token"));
      assert.deepEqual(state.waits, [3000, 2000, 4000]); // Retry-After 3 s, then the backoff (and over Retry-After)
    } finally {
      delete globalThis.document;
      delete globalThis.fetch;
    }
  });
});
