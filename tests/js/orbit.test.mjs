// The 3D viewer's camera arithmetic (workspace/orbit.js): the fit, a turn by key, a zoom kept in range.
import { test } from "node:test";
import assert from "node:assert/strict";
import { HOME, MAX_DISTANCE, MIN_DISTANCE, TURN_STEP, fitScale, fromSpherical, poseText, toSpherical, turned, zoomPercent, zoomed } from "../../frontend/static/frontend/workspace/orbit.js";

const near = (a, b) => a.forEach((value, i) => assert.ok(Math.abs(value - b[i]) < 1e-9, `${a} ≈ ${b}`));
const length = (v) => Math.hypot(...v);

test("a model of any size fits a sphere of radius 1; an empty or broken box keeps its scale", () => {
  assert.equal(fitScale([2, 2, 2]) * Math.hypot(2, 2, 2), 2);
  assert.equal(fitScale([400, 0, 300]), 2 / 500);
  assert.equal(fitScale([0, 0, 0]), 1);
  assert.equal(fitScale([Infinity, 1, 1]), 1);
});

test("spherical coordinates go there and back", () => {
  near(fromSpherical(toSpherical(HOME.position)), HOME.position);
});

test("← and → turn around the vertical axis at the same distance; ↑ and ↓ tip the model, never past a pole", () => {
  const left = turned(HOME.position, HOME.target, "ArrowLeft");
  assert.ok(Math.abs(length(left) - length(HOME.position)) < 1e-9);
  assert.equal(left[1].toFixed(9), HOME.position[1].toFixed(9));
  near(turned(left, HOME.target, "ArrowRight"), HOME.position);
  // ↓ tips the model's front down: the camera rises towards the top, and stops just short of it; ↑ the other way.
  let top = HOME.position;
  let bottom = HOME.position;
  for (let i = 0; i < 40; i += 1) {
    top = turned(top, HOME.target, "ArrowDown", TURN_STEP);
    bottom = turned(bottom, HOME.target, "ArrowUp", TURN_STEP);
  }
  assert.ok(toSpherical(top)[1] > 0 && toSpherical(top)[1] < 0.02, "above, short of the pole");
  assert.ok(toSpherical(bottom)[1] < Math.PI && toSpherical(bottom)[1] > Math.PI - 0.02, "below, short of the pole");
});

test("zooming moves along the line of sight and stays between the limits", () => {
  const closer = zoomed(HOME.position, HOME.target, 1.25);
  assert.ok(Math.abs(length(closer) - length(HOME.position) / 1.25) < 1e-9);
  near(closer.map((v) => v / length(closer)), HOME.position.map((v) => v / length(HOME.position)));
  let far = HOME.position;
  for (let i = 0; i < 30; i += 1) far = zoomed(far, HOME.target, 0.8);
  assert.ok(Math.abs(length(far) - MAX_DISTANCE) < 1e-9);
  let near0 = HOME.position;
  for (let i = 0; i < 30; i += 1) near0 = zoomed(near0, HOME.target, 1.25);
  assert.ok(Math.abs(length(near0) - MIN_DISTANCE) < 1e-9);
});

test("a pose is shown as x,y,z with four decimals", () => {
  assert.equal(poseText(HOME.position), "1.6000,1.1000,2.2000");
  assert.equal(poseText([-0.00001, 1 / 3, 2]), "0.0000,0.3333,2.0000");
});

test("the zoom level is 100% at the starting view and doubles at half the distance", () => {
  assert.equal(zoomPercent(HOME.position), 100);
  assert.equal(zoomPercent(HOME.position.map((v) => v / 2)), 200);
  assert.equal(zoomPercent(zoomed(HOME.position, HOME.target, 1.25)), 125);
});
