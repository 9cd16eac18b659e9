// The viewing aids of a pair and their keys, on the rating page and the review page alike: zoom and pan together,
// the edit's comparison with its inputs, response panes paged (by step for interleaved answers), the prompt, the
// reasoning steps, the image inspector and the media's playback. `when(event)` says whether a key applies now.
import { bind } from "./keys.js";
import { arrowStep } from "./keymap.js";
import { Inspector } from "./inspector.js";
import { Playback } from "./playback.js";
import { Compare, StepAlignment, ZoomGroup, scrollPanes, syncScroll } from "./media.js";
import { zoomPercent } from "./orbit.js";

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

export function wireViewing({ pair, inspectorDialog, when, styleNonce }) {
  // Synchronized zoom, where the kind offers it, and the 3D views, which turn and zoom together (model3d.js).
  const frames = $$("[data-zoom-frame]");
  const zoom = frames.length ? new ZoomGroup(frames, $("[data-zoom-level]")) : null;
  const models = modelViews($$("[data-model3d-frame]"), zoom ? null : $("[data-zoom-level]"));
  if (zoom || models) {
    const zoomBy = (factor) => { zoom?.zoomAt(factor); models?.zoom(factor); };
    const reset = () => { zoom?.reset(); models?.reset(); };
    $$("[data-zoom]").forEach((button) => button.addEventListener("click", () => {
      const action = button.dataset.zoom;
      if (action === "reset") reset(); else zoomBy(action === "in" ? 1.25 : 0.8);
    }));
    bind(["+", "="], { group: "Viewing", label: "Zoom in (both sides)", hint: ["+"], when, run: () => zoomBy(1.25) });
    bind(["-"], { group: "Viewing", label: "Zoom out", when, run: () => zoomBy(0.8) });
    const resetLabel = !models ? "Reset zoom" : zoom ? "Reset the zoom and the 3D view (both sides)" : "Reset the 3D view (both sides)";
    bind(["z"], { group: "Viewing", label: resetLabel, when, run: reset });
  }
  if (zoom) {
    bind(["Shift+ArrowLeft", "Shift+ArrowRight", "Shift+ArrowUp", "Shift+ArrowDown"], {
      group: "Viewing", label: "Pan the zoomed images", hint: ["Shift+←↑→↓"], when,
      run: (event) => {
        zoom.pan(...arrowStep(event.key, 0.1));
      },
    });
  }
  if (models) {
    // Pressed on a focused 3D view, the arrows reach its own listener first (elsewhere ↑ and ↓ are the form's keys).
    const onModel = (event) => Boolean(event.target.closest?.("[data-model3d-frame]"));
    bind(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"], {
      group: "Viewing", label: "Turn the 3D models (a 3D view focused: Tab to it or click it)", hint: ["←↑→↓"],
      when: (event) => when(event) && onModel(event), run: (event) => models.turn(event.key),
    });
  }
  const slider = $("[data-compare-slider]");
  if (slider) {
    const compare = new Compare(pair, slider, $$("[data-compare-choose]"));
    $("[data-compare-toggle]").addEventListener("click", () => compare.toggle());
    bind(["c"], { group: "Viewing", label: "Show the output or its input image", when, run: () => compare.toggle() });
    bind(["[", "]"], { group: "Viewing", label: "Move the comparison slider", when, run: (e) => compare.nudge(e.key === "]" ? 10 : -10) });
    bind(["v"], { group: "Viewing", label: "Compare with the next input image", when, run: () => compare.choose(compare.index + 1) });
  }
  // Response panes: interleaved answers aligned step by step and paged by step; the others paged by screen.
  const panes = $$("[data-side-scroll]");
  const steps = pair.dataset.kind === "interleaved" ? new StepAlignment(panes) : null;
  const syncToggle = $("[data-sync-scroll-toggle]");
  if (syncToggle) {
    syncScroll(panes, syncToggle, { aligned: Boolean(steps) });
    bind(["s"], { group: "Viewing", label: "Scroll both sides together, or not", when, run: () => { syncToggle.checked = !syncToggle.checked; } });
  }
  // Space on a focused button or link presses it, as everywhere else.
  const onControl = (event) => event.key === " " && Boolean(event.target.closest?.("button, a, summary"));
  const page = (direction) => {
    if (steps) steps.go(steps.current() + direction);
    else scrollPanes(syncToggle?.checked ? panes.slice(0, 1) : panes, direction);
  };
  bind([" ", "PageDown"], { group: "Viewing", label: steps ? "Next step, in both responses" : "Scroll the responses down", hint: ["Space", "PageDown"], when: (e) => when(e) && !onControl(e), run: () => page(1) });
  bind(["Shift+ ", "PageUp"], { group: "Viewing", label: steps ? "Previous step" : "Scroll the responses up", hint: ["Shift+Space", "PageUp"], when: (e) => when(e) && !onControl(e), run: () => page(-1) });
  const prompt = $("#prompt");
  const togglePrompt = () => {
    const open = prompt.classList.toggle("expanded");
    promptButton.setAttribute("aria-expanded", String(open));
    if (open) prompt.scrollTop = 0;
  };
  const promptButton = $("[data-prompt-toggle]");
  promptButton.addEventListener("click", togglePrompt);
  bind(["p"], { group: "Viewing", label: "Show the whole prompt, or fold it back", when, run: togglePrompt });
  const stepsToggle = $("[data-steps-toggle]");
  if (stepsToggle) {
    const flip = () => {
      const steps = $$("[data-step]");
      const open = !steps.every((step) => step.open);
      steps.forEach((step) => { step.open = open; });
    };
    stepsToggle.addEventListener("click", flip);
    bind(["e"], { group: "Viewing", label: "Collapse or expand all reasoning steps", when, run: flip });
  }

  // Every image on the page opens in the inspector: prompt, outputs, edit inputs, reasoning inputs and tool results.
  const inspectable = $$(".pair img").filter((img) => !img.matches("[data-compare-input]"));
  if (inspectable.length) {
    const inputs = pair.dataset.kind === "image-editing" ? $$(".prompt img") : [];
    const inspector = new Inspector(inspectorDialog, inspectable, inputs);
    inspector.bindKeys();
    const openButton = $("[data-inspect-open]");
    openButton.hidden = false;
    openButton.addEventListener("click", () => inspector.openCurrent());
  }

  // Audio and video: the responses' (or the prompt's) recordings on keys, A and B switched at the same moment.
  const playback = new Playback(pair, { styleNonce });
  if (playback.active) {
    bind(["m"], { group: "Media", label: playback.video ? "Play or pause both videos, in step" : "Play or pause", when, run: () => playback.toggle() });
    bind([","], { group: "Media", label: "Play from the start", when, run: () => playback.restart() });
    if (playback.tracks.length === 2) {
      bind([";"], { group: "Media", label: playback.video ? "Hear the other video" : "Switch to the other response at the same moment", when, run: () => playback.switch() });
    }
  }
  return { playback, models };
}

// The page's 3D views as one group, once three.js is loaded (only a page with a 3D response loads it); null when
// there are none. Keys pressed before it is ready wait for it. `level` (the toolbar's zoom level, where no image
// zoom owns it) shows how near the camera is, 100% at the starting view.
function modelViews(frames, level) {
  if (!frames.length) return null;
  const onPose = (position) => { if (level) level.textContent = `${zoomPercent(position)}%`; };
  const ready = import("./model3d.js").then(({ ModelGroup }) => new ModelGroup(frames, { onPose }));
  ready.catch((error) => frames.forEach((frame) => {
    frame.dataset.model3dLoaded = "error";
    const block = frame.closest("[data-model3d]");
    block.querySelector("[data-model3d-status]").textContent = `The 3D viewer did not load (${error.message}); the file can be downloaded instead.`;
    block.querySelector("[data-model3d-download]").hidden = false;
  }));
  const later = (action) => (...args) => { ready.then((group) => group[action](...args)).catch(() => {}); };
  return { zoom: later("zoom"), reset: later("reset"), turn: later("turn"), dispose: later("dispose") };
}
