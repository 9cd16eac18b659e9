// Playback's arithmetic: the share played, a video pair kept in step, A and B switched at the same moment, and
// the shares the submit sends (kept across a reload) with the warning's list of what was not played through.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  DRIFT_S, coverageOf, mergeCoverage, namedSides, outOfStep, playedShare, shortSides, switchTime,
} from "../../frontend/static/frontend/workspace/sync.js";

// A TimeRanges of [start, end] pairs, as media.played is.
const ranges = (...pairs) => ({ length: pairs.length, start: (i) => pairs[i][0], end: (i) => pairs[i][1] });
const media = (duration, ...played) => ({ duration, played: ranges(...played) });

describe("playedShare", () => {
  test("adds up the played ranges over the duration", () => {
    assert.equal(playedShare(media(10, [0, 2], [5, 8])), 0.5);
    assert.equal(playedShare(media(4)), 0);
  });

  test("never more than all of it", () => {
    assert.equal(playedShare(media(10, [0, 10], [2, 9])), 1);
  });

  test("nothing while the duration is unknown or endless", () => {
    for (const duration of [0, NaN, Infinity, undefined]) assert.equal(playedShare(media(duration, [0, 3])), 0, String(duration));
  });
});

describe("outOfStep", () => {
  test("a playing pair further apart than the drift is out of step, either way", () => {
    assert.equal(outOfStep({ paused: false, currentTime: 10 }, { currentTime: 10 + DRIFT_S + 0.01 }), true);
    assert.equal(outOfStep({ paused: false, currentTime: 10 }, { currentTime: 9.5 }), true);
  });

  test("within the drift, or with the lead paused, it is left alone", () => {
    assert.equal(outOfStep({ paused: false, currentTime: 10 }, { currentTime: 10.1 }), false);
    assert.equal(outOfStep({ paused: true, currentTime: 10 }, { currentTime: 3 }), false);
  });
});

describe("switchTime", () => {
  test("the other response starts at the same moment", () => {
    assert.equal(switchTime({ currentTime: 12.5 }, { duration: 30 }), 12.5);
  });

  test("at its end when it is shorter, at the same moment while its length is unknown", () => {
    assert.equal(switchTime({ currentTime: 12.5 }, { duration: 8 }), 8);
    assert.equal(switchTime({ currentTime: 12.5 }, { duration: NaN }), 12.5);
    assert.equal(switchTime({ currentTime: 12.5 }, { duration: 0 }), 12.5);
  });
});

describe("coverage", () => {
  test("each track's share by side, the prompt's under \"prompt\", to three decimals", () => {
    const tracks = [
      { side: "A", media: media(3, [0, 1]) },
      { side: "B", media: media(10, [0, 10]) },
    ];
    assert.deepEqual(coverageOf(tracks), { A: 0.333, B: 1 });
    assert.deepEqual(coverageOf([{ side: "", media: media(8, [0, 2]) }]), { prompt: 0.25 });
  });

  test("the submit sends the larger of now's share and the one kept from before a reload", () => {
    assert.deepEqual(mergeCoverage({ A: 0.2, B: 0.9 }, { A: "0.75", B: 0.5 }), { A: 0.75, B: 0.9 });
  });

  test("kept counts that are missing or not numbers count as nothing; sides not played now are not sent", () => {
    assert.deepEqual(mergeCoverage({ A: 0.4, B: 0.1 }, { A: "junk", C: 1 }), { A: 0.4, B: 0.1 });
    assert.deepEqual(mergeCoverage({}, { A: 1 }), {});
  });

  test("the sides played less than the required share, in order, named for the warning", () => {
    const short = shortSides({ B: 0.5, prompt: 0.2, A: 0.94 }, 0.95);
    assert.deepEqual(short, ["A", "B", "prompt"]);
    assert.deepEqual(shortSides({ A: 0.95, B: 1 }, 0.95), []);
    assert.equal(namedSides(short), "response A and response B and the prompt's recording");
    assert.equal(namedSides(["B"]), "response B");
  });
});
