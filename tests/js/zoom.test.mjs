// The synchronised zoom's view (media.js ZoomGroup): the scale and offset every frame shares, with no frames attached.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ZoomGroup } from "../../frontend/static/frontend/workspace/media.js";

const near = (actual, expected) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

test("zooming keeps the point under the cursor where it is, and shows the level", () => {
  const level = { textContent: "" };
  const zoom = new ZoomGroup([], level);
  assert.equal(level.textContent, "100%");
  zoom.zoomAt(2, 0.25, 0.75);
  assert.equal(zoom.scale, 2);
  // The image point u under the cursor satisfies fx = x + u·scale before and after: u = 0.25 and 0.75 at scale 1.
  near(zoom.x + 0.25 * zoom.scale, 0.25);
  near(zoom.y + 0.75 * zoom.scale, 0.75);
  assert.equal(level.textContent, "200%");
});

test("the scale stays between 1 and 8", () => {
  const zoom = new ZoomGroup([], null);
  zoom.zoomAt(100);
  assert.equal(zoom.scale, 8);
  zoom.zoomAt(0.001);
  assert.equal(zoom.scale, 1);
  assert.deepEqual([zoom.x, zoom.y], [0, 0]);
});

test("panning stops at the image's edges; reset shows it whole", () => {
  const zoom = new ZoomGroup([], null);
  zoom.zoomAt(2, 0.5, 0.5);
  zoom.pan(5, -5);
  assert.deepEqual([zoom.x, zoom.y], [0, -1]);
  zoom.reset();
  assert.deepEqual([zoom.scale, zoom.x, zoom.y], [1, 0, 0]);
  zoom.pan(0.3, 0.3);
  assert.deepEqual([zoom.x, zoom.y], [0, 0]);
});
