// The image inspector: any image on the page full screen, at fit, 1:1 or any zoom, with response A and
// B panned together, flickered or wiped in one frame, and a difference view.
import { bind } from "./keys.js";
import { arrowStep } from "./keymap.js";

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];
const MAX_SCALE = 32;
const VIEWS = { both: "Side by side", flicker: "Flicker", wipe: "Wipe", diff: "Difference" };

// The full-size source of a page image (its src; srcset offers screen-sized renditions for the page itself).
const sourceOf = (img) => img.dataset.original || img.getAttribute("src");

function sideOf(img) {
  return img.closest("[data-side]")?.dataset.side || null;
}

// What an image is called in the inspector: its response and place, or its place in the prompt.
function nameOf(img, position) {
  const side = sideOf(img);
  if (side) return `Response ${side}${position ? `, image ${position}` : ""}`;
  const caption = img.closest("figure")?.querySelector("[data-caption]")?.textContent.trim();
  return caption || img.alt || "Prompt image";
}

export class Inspector {
  constructor(dialog, images, inputs) {
    this.dialog = dialog;
    this.images = images; // every inspectable image on the page, in reading order
    this.inputs = inputs; // the prompt's input images, compared with an edited output
    this.stage = $("[data-inspector-stage]", dialog);
    this.title = $("[data-inspector-title]", dialog);
    this.level = $("[data-inspector-level]", dialog);
    this.viewName = $("[data-inspector-view]", dialog);
    this.showing = $("[data-inspector-showing]", dialog);
    this.wipe = $("[data-inspector-wipe]", dialog);
    this.view = "both";
    this.scale = 1; // 1 = the image fitted to its frame
    this.cx = 0.5; // the image point at the frame's centre, as fractions of the image
    this.cy = 0.5;
    this.flipped = false;
    this.target = 0; // 0: the other response; 1..n: input n
    for (const img of images) this.makeOpenable(img);
    this.wireControls();
    dialog.addEventListener("close", () => { this.stage.replaceChildren(); document.body.classList.remove("inspecting"); });
    new ResizeObserver(() => this.dialog.open && this.apply()).observe(this.stage);
  }

  makeOpenable(img) {
    img.tabIndex = 0;
    img.setAttribute("role", "button");
    img.setAttribute("aria-keyshortcuts", "o Enter");
    img.setAttribute("aria-label", `Inspect ${nameOf(img, this.positionOf(img))} full screen`);
    img.classList.add("inspectable");
    img.addEventListener("click", (event) => {
      // In a zoom frame a click ends a pan or zooms; double-click zooms there: the inspector opens with `o`.
      if (img.closest("[data-zoom-frame]") && event.detail !== 0) return;
      this.open(img);
    });
    img.addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      this.open(img);
    });
  }

  wireControls() {
    $$("[data-inspector-action]", this.dialog).forEach((button) => button.addEventListener("click", () => {
      const action = button.dataset.inspectorAction;
      if (action in VIEWS) this.setView(action);
      else if (action === "fit") this.fit();
      else if (action === "actual") this.actualSize();
      else if (action === "in") this.zoomBy(1.25);
      else if (action === "out") this.zoomBy(0.8);
      else if (action === "swap") this.flip();
      else if (action === "target") this.nextTarget();
      else if (action === "close") this.dialog.close();
    }));
    this.wipe.addEventListener("input", () => this.apply());
    this.stage.addEventListener("wheel", (event) => {
      event.preventDefault();
      const frame = event.target.closest(".inspector-frame");
      if (!frame) return;
      const box = frame.getBoundingClientRect();
      this.zoomBy(Math.exp(-event.deltaY * 0.0015), (event.clientX - box.left) / box.width, (event.clientY - box.top) / box.height, frame);
    }, { passive: false });
    this.stage.addEventListener("pointerdown", (event) => {
      const frame = event.target.closest(".inspector-frame");
      if (!frame || event.button !== 0) return;
      frame.setPointerCapture(event.pointerId);
      let last = [event.clientX, event.clientY];
      const move = (e) => {
        this.panPixels(e.clientX - last[0], e.clientY - last[1], frame);
        last = [e.clientX, e.clientY];
      };
      const up = () => { frame.removeEventListener("pointermove", move); frame.removeEventListener("pointerup", up); };
      frame.addEventListener("pointermove", move);
      frame.addEventListener("pointerup", up);
    });
  }

  positionOf(img) {
    const side = sideOf(img);
    if (!side) return 0;
    return this.images.filter((other) => sideOf(other) === side).indexOf(img) + 1;
  }

  // The image of the other response at the same place, if that response has one.
  counterpart(img) {
    const side = sideOf(img);
    if (!side) return null;
    const position = this.positionOf(img);
    const other = this.images.filter((candidate) => sideOf(candidate) && sideOf(candidate) !== side);
    return other[position - 1] || null;
  }

  // The open image first, then what it is compared with: the other response or an input.
  sources() {
    const primary = this.current;
    let second = null;
    if (this.target === 0) second = this.counterpart(primary);
    else second = this.inputs[this.target - 1] || null;
    const pair = [primary, second].filter(Boolean);
    if (pair.length === 2 && sideOf(pair[0]) === "B" && this.target === 0) pair.reverse(); // A always left
    return pair;
  }

  open(img) {
    this.current = img;
    this.target = sideOf(img) && !this.counterpart(img) && this.inputs.length ? 1 : 0;
    this.view = "both";
    this.flipped = false;
    this.scale = 1;
    this.cx = 0.5;
    this.cy = 0.5;
    this.wipe.value = "50";
    this.render();
    document.body.classList.add("inspecting");
    if (!this.dialog.open) this.dialog.showModal();
    this.apply();
  }

  openCurrent() {
    const hovered = $$(".inspectable:hover").pop();
    const focused = document.activeElement?.classList?.contains("inspectable") ? document.activeElement : null;
    const first = this.images.find((img) => sideOf(img)) || this.images[0];
    const img = focused || hovered || first;
    if (img) this.open(img);
  }

  get comparable() {
    return this.sources().length === 2;
  }

  setView(view) {
    if (view !== "both" && !this.comparable) return;
    this.view = view;
    this.flipped = false;
    this.render();
    this.apply();
  }

  nextTarget() {
    if (!sideOf(this.current)) return;
    const choices = [this.counterpart(this.current) ? 0 : null, ...this.inputs.map((_, i) => i + 1)].filter((c) => c !== null);
    if (choices.length < 2) return;
    this.target = choices[(choices.indexOf(this.target) + 1) % choices.length];
    this.render();
    this.apply();
  }

  // One frame per image side by side, or one frame with both images stacked for flicker, wipe and difference.
  render() {
    const sources = this.sources();
    const frames = [];
    const frame = (imgs, label) => {
      const element = document.createElement("div");
      element.className = "inspector-frame";
      element.dataset.label = label;
      const layer = document.createElement("div");
      layer.className = "inspector-layer";
      for (const source of imgs) {
        const img = document.createElement("img");
        img.src = sourceOf(source);
        img.alt = nameOf(source, this.positionOf(source));
        img.draggable = false;
        img.decoding = "async";
        img.addEventListener("load", () => this.apply(), { once: true });
        layer.append(img);
      }
      const tag = document.createElement("span");
      tag.className = "inspector-tag";
      element.append(layer, tag);
      frames.push(element);
      return element;
    };
    if (this.view === "both" || sources.length < 2) {
      for (const source of sources) frame([source], nameOf(source, this.positionOf(source)));
    } else if (this.view === "diff") {
      const element = frame([sources[0]], "Difference");
      const canvas = document.createElement("canvas");
      canvas.className = "inspector-diff";
      element.querySelector(".inspector-layer").append(canvas);
      this.difference(sources, canvas);
    } else {
      frame(sources, this.view === "wipe" ? "Wipe" : "Flicker");
    }
    this.stage.replaceChildren(...frames);
    this.stage.dataset.view = this.view;
    this.stage.dataset.count = String(frames.length);
    this.dialog.dataset.comparable = String(this.comparable);
    this.title.textContent = sources.map((s) => nameOf(s, this.positionOf(s))).join(" · ");
    this.viewName.textContent = VIEWS[this.view];
    const targetButton = $("[data-inspector-action=target]", this.dialog);
    targetButton.hidden = !(sideOf(this.current) && this.inputs.length);
    targetButton.querySelector("span").textContent = this.target === 0 ? "the other response" : `input ${this.target}`;
    $$("[data-inspector-action]", this.dialog).forEach((button) => {
      const action = button.dataset.inspectorAction;
      if (action in VIEWS) {
        button.setAttribute("aria-pressed", String(action === this.view));
        button.disabled = action !== "both" && !this.comparable;
      }
    });
  }

  // |A − B| per channel, amplified, over A's size (B drawn to it): where the two differ, it lights up.
  async difference(sources, canvas) {
    const images = await Promise.all(sources.map((source) => new Promise((resolve, reject) => {
      const img = new Image();
      img.onload = () => resolve(img);
      img.onerror = reject;
      img.src = sourceOf(source);
    })));
    const [a, b] = images;
    const width = a.naturalWidth;
    const height = a.naturalHeight;
    const read = (img) => {
      const scratch = document.createElement("canvas");
      scratch.width = width;
      scratch.height = height;
      const context = scratch.getContext("2d", { willReadFrequently: true });
      context.drawImage(img, 0, 0, width, height);
      return context.getImageData(0, 0, width, height);
    };
    const first = read(a);
    const second = read(b).data;
    const out = first.data;
    let changed = 0;
    for (let i = 0; i < out.length; i += 4) {
      const d = Math.max(Math.abs(out[i] - second[i]), Math.abs(out[i + 1] - second[i + 1]), Math.abs(out[i + 2] - second[i + 2]));
      if (d > 8) changed += 1;
      const v = Math.min(255, d * 4);
      out[i] = v; out[i + 1] = v; out[i + 2] = v; out[i + 3] = 255;
    }
    canvas.width = width;
    canvas.height = height;
    canvas.getContext("2d").putImageData(first, 0, 0);
    canvas.dataset.changedShare = (changed / (width * height)).toFixed(4);
    this.diffNote = `${((100 * changed) / (width * height)).toFixed(1)} % of pixels differ`;
    this.apply();
  }

  // The fitted size of the first image in a frame, and the scale at which one image pixel is one screen pixel.
  geometry(frame) {
    const img = frame.querySelector("img");
    const box = frame.getBoundingClientRect();
    const nw = img?.naturalWidth || box.width;
    const nh = img?.naturalHeight || box.height;
    const fit = Math.min(box.width / nw, box.height / nh);
    return { box, nw, nh, fit, actual: 1 / (fit * (window.devicePixelRatio || 1)) };
  }

  fit() {
    this.scale = 1;
    this.cx = 0.5;
    this.cy = 0.5;
    this.apply();
  }

  actualSize() {
    const frame = $(".inspector-frame", this.stage);
    if (!frame) return;
    this.scale = Math.min(MAX_SCALE, this.geometry(frame).actual);
    this.apply();
  }

  // Zoom by `factor` keeping the image point under (fx, fy) of `frame` where it is.
  zoomBy(factor, fx = 0.5, fy = 0.5, frame = $(".inspector-frame", this.stage)) {
    if (!frame) return;
    const g = this.geometry(frame);
    const scale = Math.min(MAX_SCALE, Math.max(Math.min(1, g.actual), this.scale * factor));
    const shown = g.fit * this.scale;
    const px = (fx - 0.5) * g.box.width;
    const py = (fy - 0.5) * g.box.height;
    const ux = this.cx + px / (shown * g.nw);
    const uy = this.cy + py / (shown * g.nh);
    const next = g.fit * scale;
    this.cx = ux - px / (next * g.nw);
    this.cy = uy - py / (next * g.nh);
    this.scale = scale;
    this.apply();
  }

  panPixels(dx, dy, frame = $(".inspector-frame", this.stage)) {
    if (!frame) return;
    const g = this.geometry(frame);
    const shown = g.fit * this.scale;
    this.cx -= dx / (shown * g.nw);
    this.cy -= dy / (shown * g.nh);
    this.apply();
  }

  pan(fx, fy) {
    const frame = $(".inspector-frame", this.stage);
    if (!frame) return;
    const box = frame.getBoundingClientRect();
    this.panPixels(fx * box.width, fy * box.height, frame);
  }

  flip() {
    if (this.view !== "flicker") this.setView("flicker");
    this.flipped = !this.flipped;
    this.apply();
  }

  // Every frame shows the same image point at its centre at the same scale; images of different sizes
  // are laid over the first one's box, so A and B line up pixel for pixel in flicker, wipe and difference.
  apply() {
    const sources = this.sources();
    for (const frame of $$(".inspector-frame", this.stage)) {
      const g = this.geometry(frame);
      const shown = g.fit * this.scale;
      const w = g.nw * shown;
      const h = g.nh * shown;
      // Keep the image on screen: centred when smaller than the frame, edge to edge otherwise.
      const half = (extent, size) => (size <= extent ? 0.5 : null);
      const clamp = (c, extent, size) => half(extent, size) ?? Math.min(1 - extent / (2 * size), Math.max(extent / (2 * size), c));
      this.cx = clamp(this.cx, g.box.width, w);
      this.cy = clamp(this.cy, g.box.height, h);
      const layer = frame.querySelector(".inspector-layer");
      layer.style.width = `${w}px`;
      layer.style.height = `${h}px`;
      layer.style.transform = `translate(${g.box.width / 2 - this.cx * w}px, ${g.box.height / 2 - this.cy * h}px)`;
      frame.classList.toggle("pixelated", this.scale > g.actual * 1.01);
      const stacked = layer.querySelectorAll("img");
      const tag = frame.querySelector(".inspector-tag");
      if (this.view === "flicker" && stacked.length === 2) {
        stacked[1].hidden = !this.flipped;
        tag.textContent = nameOf(sources[this.flipped ? 1 : 0], this.positionOf(sources[this.flipped ? 1 : 0]));
        frame.dataset.showing = this.flipped ? "second" : "first";
      } else if (this.view === "wipe" && stacked.length === 2) {
        stacked[1].style.clipPath = `inset(0 0 0 ${this.wipe.value}%)`;
        layer.style.setProperty("--wipe", `${this.wipe.value}%`);
        tag.textContent = `◂ ${nameOf(sources[0], this.positionOf(sources[0]))} | ${nameOf(sources[1], this.positionOf(sources[1]))} ▸`;
      } else if (this.view === "diff") {
        tag.textContent = `Difference: ${this.diffNote || "computing…"}`;
      } else {
        tag.textContent = frame.dataset.label;
      }
    }
    this.dialog.dataset.view = this.view;
    this.wipe.closest("label").hidden = this.view !== "wipe";
    const frame = $(".inspector-frame", this.stage);
    const actual = frame ? this.geometry(frame).actual : 1;
    this.level.textContent = `${Math.round((this.scale / actual) * 100)} %`;
    this.showing.textContent = this.view === "flicker" ? (this.flipped ? "second" : "first") : "";
  }

  // Keys while the inspector is open. Flicker: tap to toggle, hold to look at the other image until release.
  bindKeys() {
    const open = () => this.dialog.open;
    bind(["o"], { group: "Images", label: "Inspect the image under the pointer (or the first) full screen", when: () => !open() && !document.querySelector("dialog[open]"), run: () => this.openCurrent() });
    bind(["0"], { group: "Inspector", label: "Fit the image to the screen", when: open, run: () => this.fit() });
    bind(["1"], { group: "Inspector", label: "Actual pixels (1:1)", when: open, run: () => this.actualSize() });
    bind(["+", "="], { group: "Inspector", label: "Zoom in", hint: ["+"], when: open, run: () => this.zoomBy(1.25) });
    bind(["-"], { group: "Inspector", label: "Zoom out", when: open, run: () => this.zoomBy(0.8) });
    bind(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"], {
      group: "Inspector", label: "Pan", hint: ["←↑→↓"], when: open,
      run: (event) => {
        this.pan(...arrowStep(event.key, 0.15));
      },
    });
    bind(["b"], { group: "Inspector", label: "A and B side by side", when: open, run: () => this.setView("both") });
    bind(["t"], {
      group: "Inspector", label: "Flicker between A and B in one frame (tap to switch, hold to compare)", when: open,
      run: (event) => {
        if (event.repeat) return;
        this.flip();
        const started = performance.now();
        const release = (up) => {
          if (up.key !== "t") return;
          document.removeEventListener("keyup", release);
          if (performance.now() - started > 300) this.flip(); // held: back to where it was
        };
        document.addEventListener("keyup", release);
      },
    });
    bind(["w"], { group: "Inspector", label: "Wipe between A and B in one frame", when: open, run: () => this.setView("wipe") });
    bind(["[", "]"], {
      group: "Inspector", label: "Move the wipe", when: () => open() && this.view === "wipe",
      run: (event) => { this.wipe.value = String(Number(this.wipe.value) + (event.key === "]" ? 5 : -5)); this.apply(); },
    });
    bind(["d"], { group: "Inspector", label: "Difference of the two images", when: open, run: () => this.setView("diff") });
    bind(["c"], { group: "Inspector", label: "Compare with the other response or an input image", when: open, run: () => this.nextTarget() });
    bind(["Escape", "q"], { group: "Inspector", label: "Close the inspector", hint: ["Esc", "q"], when: open, run: () => this.dialog.close() });
  }
}
