// The pure half of the 3D viewer (model3d.js draws with three.js): where the camera starts, a turn and a zoom by
// key, and the scale that fits a model in the view. Every model is centred and scaled to a sphere of radius 1, so one
// camera pose means the same view of either response: the pose is what the two viewers share.

export const HOME = Object.freeze({ position: [1.6, 1.1, 2.2], target: [0, 0, 0] });
export const MIN_DISTANCE = 1.2;
export const MAX_DISTANCE = 8;
// A key press turns the view by this angle (radians) and zooms by this factor.
export const TURN_STEP = Math.PI / 12;
export const ZOOM_STEP = 1.25;
const POLE = 0.01; // the camera never reaches straight above or below, where "up" is undefined

// The factor that scales a model whose bounding box has `size` ([x, y, z]) to fit a sphere of radius 1.
export function fitScale(size) {
  const diagonal = Math.hypot(...size);
  return diagonal > 0 && Number.isFinite(diagonal) ? 2 / diagonal : 1;
}

// The camera's offset from its target as [radius, polar angle from +y, azimuth around y], and back.
export function toSpherical([x, y, z]) {
  const radius = Math.hypot(x, y, z);
  if (radius === 0) return [0, Math.PI / 2, 0];
  return [radius, Math.acos(Math.min(1, Math.max(-1, y / radius))), Math.atan2(x, z)];
}

export function fromSpherical([radius, polar, azimuth]) {
  const ring = radius * Math.sin(polar);
  return [ring * Math.sin(azimuth), radius * Math.cos(polar), ring * Math.cos(azimuth)];
}

// The camera position after an arrow key ("ArrowLeft" … "ArrowDown"): the model turns the way the arrow points.
export function turned(position, target, key, step = TURN_STEP) {
  const offset = position.map((value, i) => value - target[i]);
  const [radius, polar, azimuth] = toSpherical(offset);
  const [dPolar, dAzimuth] = { ArrowLeft: [0, step], ArrowRight: [0, -step], ArrowUp: [step, 0], ArrowDown: [-step, 0] }[key];
  const next = fromSpherical([radius, Math.min(Math.PI - POLE, Math.max(POLE, polar + dPolar)), azimuth + dAzimuth]);
  return next.map((value, i) => value + target[i]);
}

// The camera position after zooming by `factor` (above 1: closer), kept between MIN_DISTANCE and MAX_DISTANCE.
export function zoomed(position, target, factor) {
  const offset = position.map((value, i) => value - target[i]);
  const distance = Math.hypot(...offset);
  if (distance === 0) return [...position];
  const wanted = Math.min(MAX_DISTANCE, Math.max(MIN_DISTANCE, distance / factor));
  return offset.map((value, i) => target[i] + (value * wanted) / distance);
}

// How near the camera is, as a zoom level in percent: 100 at HOME's distance, 200 at half of it.
export function zoomPercent(position, target = HOME.target) {
  const distance = Math.hypot(...position.map((value, i) => value - target[i]));
  const home = Math.hypot(...HOME.position.map((value, i) => value - HOME.target[i]));
  return distance > 0 ? Math.round((100 * home) / distance) : 100;
}

// A pose as the page shows it for checks and tests: "x,y,z" rounded to four decimals.
export function poseText(position) {
  return position.map((value) => (Math.round(value * 1e4) / 1e4).toFixed(4)).join(",");
}
