// Viewing aids: synchronised zoom and pan, output-versus-input comparison, synchronised scrolling.

// Every zoom frame shows the same view: scale and offset (a fraction of the frame) are shared.
export class ZoomGroup {
  constructor(frames, levelOutput) {
    this.frames = [...frames];
    this.level = levelOutput;
    this.scale = 1;
    this.x = 0;
    this.y = 0;
    for (const frame of this.frames) this.attach(frame);
    this.apply();
  }

  attach(frame) {
    frame.addEventListener("wheel", (event) => {
      event.preventDefault();
      const box = frame.getBoundingClientRect();
      this.zoomAt(Math.exp(-event.deltaY * 0.0015), (event.clientX - box.left) / box.width, (event.clientY - box.top) / box.height);
    }, { passive: false });
    frame.addEventListener("dblclick", (event) => {
      const box = frame.getBoundingClientRect();
      if (this.scale > 1) this.reset();
      else this.zoomAt(2.5, (event.clientX - box.left) / box.width, (event.clientY - box.top) / box.height);
    });
    frame.addEventListener("pointerdown", (event) => {
      if (this.scale === 1 || event.button !== 0) return;
      frame.setPointerCapture(event.pointerId);
      const box = frame.getBoundingClientRect();
      let last = [event.clientX, event.clientY];
      const move = (e) => {
        this.pan((e.clientX - last[0]) / box.width, (e.clientY - last[1]) / box.height);
        last = [e.clientX, e.clientY];
      };
      const up = () => { frame.removeEventListener("pointermove", move); frame.removeEventListener("pointerup", up); };
      frame.addEventListener("pointermove", move);
      frame.addEventListener("pointerup", up);
    });
  }

  zoomAt(factor, fx = 0.5, fy = 0.5) {
    const scale = Math.min(8, Math.max(1, this.scale * factor));
    // Keep the point under the cursor where it is: fx = x + u·scale before and after.
    this.x = fx - ((fx - this.x) * scale) / this.scale;
    this.y = fy - ((fy - this.y) * scale) / this.scale;
    this.scale = scale;
    this.apply();
  }

  pan(dx, dy) {
    this.x += dx;
    this.y += dy;
    this.apply();
  }

  reset() {
    this.scale = 1;
    this.x = 0;
    this.y = 0;
    this.apply();
  }

  apply() {
    this.x = Math.min(0, Math.max(1 - this.scale, this.x));
    this.y = Math.min(0, Math.max(1 - this.scale, this.y));
    for (const frame of this.frames) {
      const content = frame.querySelector("[data-zoom-content]");
      content.style.transform = `translate(${this.x * 100}%, ${this.y * 100}%) scale(${this.scale})`;
      frame.classList.toggle("zoomed", this.scale > 1);
      // Zoomed in, the screen-sized rendition would be magnified: load the full-size one (pixels 1:1) instead.
      if (this.scale > 1) content.querySelectorAll("img[srcset]").forEach((img) => img.removeAttribute("srcset"));
    }
    if (this.level) this.level.textContent = `${Math.round(this.scale * 100)}%`;
  }
}

// The input image laid over each output, revealed from the left up to the slider's position.
export class Compare {
  constructor(root, slider, inputs) {
    this.root = root;
    this.slider = slider;
    this.urls = [...new Set(inputs.map((button) => button.dataset.compareChoose))];
    this.index = 0;
    this.buttons = inputs;
    slider.addEventListener("input", () => this.apply());
    for (const button of inputs) {
      button.addEventListener("click", () => this.choose(this.urls.indexOf(button.dataset.compareChoose)));
    }
    this.apply();
  }

  set(value) {
    this.slider.value = String(Math.min(100, Math.max(0, value)));
    this.apply();
  }

  toggle() {
    this.set(Number(this.slider.value) < 50 ? 100 : 0);
  }

  nudge(step) {
    this.set(Number(this.slider.value) + step);
  }

  choose(index) {
    this.index = (index + this.urls.length) % this.urls.length;
    const url = this.urls[this.index];
    this.root.querySelectorAll("[data-compare-input]").forEach((img) => { img.src = url; });
    this.buttons.forEach((button) => button.classList.toggle("current", button.dataset.compareChoose === url));
    const current = this.root.querySelector("[data-compare-current]");
    if (current) current.textContent = String(this.index + 1);
    if (Number(this.slider.value) === 0) this.set(100);
    this.apply();
  }

  apply() {
    const reveal = Number(this.slider.value);
    this.root.style.setProperty("--reveal", `${reveal}%`);
    const which = this.urls.length > 1 ? `input ${this.index + 1}` : "input";
    const text = reveal === 0 ? "output" : reveal === 100 ? which : `${which} | output`;
    this.root.querySelectorAll("[data-compare-tag]").forEach((tag) => { tag.textContent = text; });
  }
}

// Scrolling one side scrolls the other while the toggle is on: to the same offset where the panes are
// aligned step by step, else to the same proportion.
export function syncScroll(panes, toggle, { aligned = false } = {}) {
  const echo = new WeakMap();
  for (const pane of panes) {
    pane.addEventListener("scroll", () => {
      if (!toggle.checked) return;
      if (echo.get(pane) === pane.scrollTop) { echo.delete(pane); return; }
      const range = pane.scrollHeight - pane.clientHeight;
      const ratio = range > 0 ? pane.scrollTop / range : 0;
      for (const other of panes) {
        if (other === pane) continue;
        const target = Math.round(aligned ? pane.scrollTop : ratio * (other.scrollHeight - other.clientHeight));
        if (Math.abs(other.scrollTop - target) < 1) continue;
        echo.set(other, target);
        other.scrollTop = target;
      }
    }, { passive: true });
  }
}

// An interleaved response read as steps: each image closes a step with the text before it, trailing text
// is the last step. Step N of A and step N of B start at the same height, so they sit side by side.
export class StepAlignment {
  constructor(panes) {
    this.panes = panes;
    this.steps = panes.map((pane) => StepAlignment.group(pane));
    this.count = Math.max(0, ...this.steps.map((steps) => steps.length));
    const relayout = () => this.align();
    panes.forEach((pane) => pane.querySelectorAll("img").forEach((img) => img.addEventListener("load", relayout)));
    new ResizeObserver(relayout).observe(panes[0]);
    this.align();
  }

  static group(pane) {
    const steps = [];
    let current = null;
    for (const block of [...pane.children]) {
      if (!current) {
        current = document.createElement("div");
        current.className = "istep";
        current.dataset.istep = String(steps.length + 1);
        pane.insertBefore(current, block);
        steps.push(current);
      }
      current.append(block);
      if (block.matches(".block-image, .block-missing")) current = null;
    }
    return steps;
  }

  align() {
    for (let i = 0; i < this.count; i += 1) {
      const row = this.steps.map((steps) => steps[i]).filter(Boolean);
      row.forEach((step) => { step.style.minHeight = ""; });
      const height = Math.ceil(Math.max(...row.map((step) => step.getBoundingClientRect().height)));
      row.forEach((step) => { step.style.minHeight = `${height}px`; });
    }
  }

  // The step at the top of the panes now, and a scroll of every pane to step `index` (0-based).
  current() {
    const pane = this.panes[0];
    const steps = this.steps[0];
    const top = pane.scrollTop + 2;
    let index = 0;
    steps.forEach((step, i) => { if (step.offsetTop - pane.firstElementChild.offsetTop <= top) index = i; });
    return index;
  }

  go(index) {
    const target = Math.min(this.count - 1, Math.max(0, index));
    this.panes.forEach((pane, p) => {
      const step = this.steps[p][target] || this.steps[p].at(-1);
      if (step) pane.scrollTop = step.offsetTop - pane.firstElementChild.offsetTop;
    });
    return target;
  }
}

// A page of a response pane, both panes at once (the other one follows through syncScroll when it is on).
export function scrollPanes(panes, direction) {
  for (const pane of panes) pane.scrollBy({ top: direction * pane.clientHeight * 0.85 });
}

// Time spent with the page visible, kept across reloads of the same assignment (from `keep(key)` on, for a page
// that learns its assignment from the claim). `signal` removes its listeners when the page is replaced.
export class VisibleTimer {
  constructor(storageKey, { signal } = {}) {
    this.key = storageKey;
    this.total = storageKey ? Number(sessionStorage.getItem(storageKey) || 0) : 0;
    this.since = document.visibilityState === "visible" ? performance.now() : null;
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.since = performance.now();
      else this.pause();
    }, { signal });
    window.addEventListener("pagehide", () => this.pause(), { signal });
  }

  keep(storageKey) {
    this.key = storageKey;
    this.total += Number(sessionStorage.getItem(storageKey) || 0);
  }

  pause() {
    if (this.since !== null) this.total += performance.now() - this.since;
    this.since = null;
    if (this.key) sessionStorage.setItem(this.key, String(Math.round(this.total)));
  }

  elapsedMs() {
    const running = this.since === null ? 0 : performance.now() - this.since;
    return Math.round(this.total + running);
  }

  clear() {
    if (this.key) sessionStorage.removeItem(this.key);
  }
}
