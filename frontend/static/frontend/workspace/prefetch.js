// The next pair, ahead: once this page is ready and idle, load the images of the pair the next claim most likely
// gives into the browser's cache (the same URLs, srcset and sizes the next page will ask for), so that page shows
// them at once. GET next-preview takes no lease: the pair is leased only when the rater moves on.
const config = JSON.parse(document.getElementById("workspace-config").textContent);
const SIZES = config.image_sizes || {}; // what blocks/image.html says, so the next page picks the same renditions

function images(blocks, out = []) {
  for (const block of blocks || []) {
    if (block.type === "image" && block.url) out.push(block);
    images(block.blocks, out);
    images(block.result, out);
  }
  return out;
}

async function prefetch() {
  const response = await fetch(config.urls.preview, { credentials: "same-origin", headers: { Accept: "application/json" } });
  if (response.status !== 200) return;
  const display = await response.json();
  const found = [
    ...images(display.prompt).map((block) => [block, SIZES.prompt]),
    ...[display.left, display.right].flatMap((blocks) => images(blocks)).map((block) => [block, SIZES.response]),
  ];
  await Promise.all(found.map(([block, sizes]) => new Promise((resolve) => {
    const img = new Image();
    img.onload = img.onerror = resolve;
    if (block.srcset) {
      img.sizes = sizes;
      img.srcset = block.srcset;
    }
    img.src = block.url;
  })));
  document.body.dataset.nextPrefetched = String(found.length);
}

if (config.urls.preview) {
  const idle = window.requestIdleCallback || ((run) => setTimeout(run, 1000));
  const start = () => idle(() => prefetch().catch(() => {}));
  if (document.readyState === "complete") start(); else window.addEventListener("load", start, { once: true });
}
