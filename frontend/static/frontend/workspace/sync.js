// The arithmetic of playback (playback.js plays the media, the rating page keeps and sends the counts): how much of a
// recording has been played, when the second video of a pair has drifted from the first, where a switch to the other
// response starts, and the shares played as the submit sends them. Nothing here touches the page: a `media` is
// anything with the media element's `currentTime`, `duration`, `paused` and `played` (a TimeRanges).

export const DRIFT_S = 0.15; // a video pair further apart than this is put back in step

// The share of a media element's duration that has been played, from the browser's own record of it.
export function playedShare(media) {
  if (!media.duration || !Number.isFinite(media.duration)) return 0;
  let played = 0;
  for (let i = 0; i < media.played.length; i += 1) played += media.played.end(i) - media.played.start(i);
  return Math.min(1, played / media.duration);
}

// Whether the video that follows has drifted from the one that leads while it plays (it is then put at the lead's time).
export function outOfStep(lead, follow) {
  return !lead.paused && Math.abs(follow.currentTime - lead.currentTime) > DRIFT_S;
}

// Where the other response starts on a switch: at the same moment, or at its end when it is shorter (and at the same
// moment while its length is not known yet).
export function switchTime(from, to) {
  return Math.min(from.currentTime, to.duration || from.currentTime);
}

// The share heard or watched of each track ({ media, side }), by side ("prompt" for the prompt's recording),
// to three decimals.
export function coverageOf(tracks) {
  return Object.fromEntries(tracks.map((track) => [track.side || "prompt", Number(playedShare(track.media).toFixed(3))]));
}

// The shares the submit sends: for each side now played, the larger of now's share and the one kept from before a
// reload (the browser's own record starts again at nothing).
export function mergeCoverage(now, kept) {
  return Object.fromEntries(Object.entries(now).map(([side, share]) => [side, Math.max(share, Number(kept[side]) || 0)]));
}

// The sides played less than `share` of their length, in order (the warning before a submit names them).
export function shortSides(coverage, share) {
  return Object.entries(coverage).filter(([, played]) => played < share).map(([side]) => side).sort();
}

// The sides as the warning names them: "the prompt's recording", "response A and response B".
export function namedSides(sides) {
  return sides.map((side) => (side === "prompt" ? "the prompt's recording" : `response ${side}`)).join(" and ");
}
