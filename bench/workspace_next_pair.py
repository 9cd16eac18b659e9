"""Issue 22's speed target in a real browser: a cold first pair and the next pair, with real-size images on a
throttled connection.

    .venv/bin/python bench/workspace_next_pair.py [--pairs 5] [--size 2048] [--waterfall]

Steps (everything on 127.0.0.1, in the separate database ``concord_bench_workspace``, dropped and recreated):

1. generates photo-like PNGs of ``--size`` squared (each distinct, ~5 MB at 2048) and two campaigns in Concord's
   JSONL format: an interleaved one (8 images per response, a text step before each) and a text-to-image one,
   ``--pairs`` pairs each, rated on the ``ab-tie`` schema (one question, so the figures time the page, not the form);
2. ``import_pairs`` then ``prepare_renditions`` for both, as the README says an operator does;
3. gunicorn serves Concord as the Dockerfile does (gthread, 3 workers × 2 threads; debug off, static files by
   WhiteNoise, media by Concord);
4. headless Chromium (Playwright, ``/usr/bin/chromium``) at 1440×900, the connection throttled by CDP
   ``Network.emulateNetworkConditions`` to 50 Mbit/s down and up with 20 ms latency, signed in as an annotator.

What is measured, per campaign:

- **cold first pair**: a new browser context (empty cache) on a server that has already served pages (each
  gunicorn worker is warmed from Python first: a freshly started worker's first page took 6 s), from the
  navigation to the annotation page until it is *interactive*: ``body[data-workspace-ready]`` is set (every script
  has run and the keys are bound) AND every image that intersects the viewport has been decoded (``img.decode()``
  resolved);
- **next pair**: on each pair, once the page has prepared the next one (``body[data-next-prefetched]``, as it
  does while a rater works), the rater presses ``1`` and Ctrl+Enter (submit), then Enter ("Next pair"): from that
  Enter until the next pair is interactive: shown (the prepared page put in the document), its claim answered with
  that very pair (the lease is the rater's, ``data-workspace-ready`` set again) and every image in the viewport
  decoded. Phases: shown, claimed, decoded (ms after Enter). p50/p95 over the pairs.

``--waterfall`` prints, for the last next pair, every request the browser made after Enter (offset, duration,
whether it came from the browser's cache, bytes). Never part of ``make test``. Figures go in bench/README.md and
docs/workspace.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from annotate_load import ROOT, _env, make_annotators, setup_django, start_gunicorn, stop_gunicorn  # noqa: E402

DB = "concord_bench_workspace"
CHROMIUM = "/usr/bin/chromium"
VIEWPORT = {"width": 1440, "height": 900}
THROTTLE = {"offline": False, "latency": 20, "downloadThroughput": 50e6 / 8, "uploadThroughput": 50e6 / 8}
IMAGES_PER_RESPONSE = 8

# Runs at the creation of every document (Playwright's init script, not the page's: the page's CSP is untouched).
# window.__benchReady resolves with the wall-clock time at which the page became interactive; __benchWatch() (called
# before "Next pair") with the time at which the next pair, shown in the same document, became interactive.
READY_PROBE = """
const benchVisible = (img) => {
  const r = img.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
};
const benchDecoded = async () => {
  const fold = [...document.images].filter(benchVisible);
  await Promise.all(fold.map((img) => img.decode().catch(() => null)));
  return fold.length;
};
const benchNow = () => performance.timeOrigin + performance.now();
window.__benchReady = new Promise((resolve) => {
  const finish = async () => {
    const scripted = performance.now();
    const images = await benchDecoded();
    const navigation = performance.getEntriesByType("navigation")[0];
    resolve({ at: benchNow(), images, sinceNavigation: performance.now(),
              phases: { html: navigation.responseEnd, scripted, decoded: performance.now() } });
  };
  const watch = () => {
    if (document.body.dataset.workspaceReady) return finish();
    new MutationObserver((_, observer) => {
      if (!document.body.dataset.workspaceReady) return;
      observer.disconnect();
      finish();
    }).observe(document.body, { attributes: true, attributeFilter: ["data-workspace-ready"] });
  };
  if (document.body) watch(); else document.addEventListener("DOMContentLoaded", watch, { once: true });
});
window.__benchWatch = () => new Promise((resolve) => {
  const before = document.body.dataset.workspaceReady;
  const main = document.querySelector("main");
  let shown = null;
  new MutationObserver(async (_, observer) => {
    if (shown === null && document.querySelector("main") !== main) shown = benchNow();
    const now = document.body.dataset.workspaceReady;
    if (!now || now === before) return;
    observer.disconnect();
    const ready = benchNow();
    const images = await benchDecoded();
    resolve({ at: benchNow(), images, phases: { shown, ready } });
  }).observe(document.body, { attributes: true, attributeFilter: ["data-workspace-ready"], childList: true });
});
"""


def photo_like(seed: int, size: int) -> bytes:
    """A distinct PNG as generated outputs are: smooth colour fields with grain (compresses as a photo does)."""
    import io

    from PIL import Image

    rng = random.Random(seed)
    small = Image.new("RGB", (16, 16))
    small.putdata([tuple(rng.randrange(256) for _ in range(3)) for _ in range(256)])
    image = small.resize((size, size), Image.Resampling.BICUBIC)
    grain = Image.effect_noise((size, size), 18).convert("RGB")
    out = io.BytesIO()
    Image.blend(image, grain, 0.12).save(out, "PNG")
    return out.getvalue()


def _write_image(args: tuple[Path, int, int]) -> str:
    folder, seed, size = args
    name = f"img-{seed:05d}-{size}.png"
    if not (folder / name).exists():
        (folder / name).write_bytes(photo_like(seed, size))
    return name


def generate(out: Path, *, kind: str, pairs: int, size: int, first_seed: int) -> Path:
    """``pairs`` pairs of ``kind`` in Concord's JSONL under ``out``, each image distinct; the JSONL's path."""
    per_response = IMAGES_PER_RESPONSE if kind == "interleaved" else 1
    count = pairs * 2 * per_response
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        names = list(pool.map(_write_image, [(out, first_seed + i, size) for i in range(count)]))
    jsonl = out / f"{kind}.jsonl"
    with jsonl.open("w", encoding="utf-8") as handle:
        for p in range(pairs):
            prompt = {"id": f"{kind}-{p}", "source": "bench", "task": kind,
                      "content": [{"type": "text", "text": f"Prompt {p}: a story in {per_response} pictures of a fox.",
                                   "format": "plain"}]}
            sides = []
            for s in range(2):
                blocks = []
                for i in range(per_response):
                    if kind == "interleaved":
                        blocks.append({"type": "text", "text": f"Step {i + 1}: the fox walks on, picture {i + 1}."})
                    blocks.append({"type": "image", "file": names[(p * 2 + s) * per_response + i]})
                sides.append({"model": f"bench-model-{s}", "content": blocks})
            record = {"id": f"{kind}-{p}", "prompt": prompt, "response_a": sides[0], "response_b": sides[1]}
            handle.write(json.dumps(record) + "\n")
    return jsonl


def manage(*args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=_env(DB), check=True)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Waterfall:
    """Every request a page makes, from CDP's Network events: offset from a mark, duration, cache, bytes."""

    def __init__(self, cdp):
        self.rows: dict[str, dict] = {}
        cdp.on("Network.requestWillBeSent", self._sent)
        cdp.on("Network.requestServedFromCache", lambda e: self.rows.get(e["requestId"], {}).update(cache="memory/disk"))
        cdp.on("Network.responseReceived", self._received)
        cdp.on("Network.loadingFinished", self._finished)

    def _sent(self, event):
        self.rows[event["requestId"]] = {"url": event["request"]["url"], "wall": event["wallTime"],
                                         "start": event["timestamp"], "cache": ""}

    def _received(self, event):
        row = self.rows.get(event["requestId"])
        if row is not None:
            row["status"] = event["response"]["status"]
            if event["response"].get("fromDiskCache"):
                row["cache"] = "disk"

    def _finished(self, event):
        row = self.rows.get(event["requestId"])
        if row is not None:
            row["ms"] = (event["timestamp"] - row["start"]) * 1000
            row["bytes"] = event["encodedDataLength"]

    def since(self, mark_ms: float, until_ms: float = float("inf")) -> list[str]:
        lines = []
        for row in sorted(self.rows.values(), key=lambda r: r["wall"]):
            offset = row["wall"] * 1000 - mark_ms
            if offset < -1 or offset > until_ms:
                continue
            path = row["url"].split("//", 1)[-1].split("/", 1)[-1]
            lines.append(f"  +{offset:7.1f} ms {row.get('ms', float('nan')):7.1f} ms {row.get('status', '-')!s:>4} "
                         f"{row['cache'] or 'network':<12}{row.get('bytes', 0):>10,} B  /{path[:90]}")
        return lines


def warm_server(base_url: str, session_key: str, paths: list[str], workers: int = 3) -> None:
    """Each page once per gunicorn worker (more requests than workers, at once), from Python: the server has its
    templates and connections ready, as a running one has, while the browser's cache stays empty."""
    import urllib.request
    from concurrent.futures import ThreadPoolExecutor

    def get(path: str) -> None:
        request = urllib.request.Request(base_url + path, headers={"Cookie": f"sessionid={session_key}"})
        with urllib.request.urlopen(request, timeout=120) as response:
            response.read()

    with ThreadPoolExecutor(max_workers=workers * 2) as pool:
        list(pool.map(get, paths * workers * 3))


def throttled_page(context):
    page = context.new_page()
    page.add_init_script(READY_PROBE)
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", THROTTLE)
    return page, Waterfall(cdp)


def first_claim(slug: str) -> int:
    """The annotator's first lease in ``slug`` (the queue page's "Start rating" does the same): its id."""
    from annotation.accounts.models import User
    from annotation.catalogue.models import Campaign
    from annotation.workqueue.services.assignments import assignment_claim

    annotator = User.objects.get(username="bench-rater-0")
    return assignment_claim(campaign=Campaign.objects.get(slug=slug), annotator=annotator).pk


def run_campaign(browser, base_url: str, session_key: str, slug: str, first: int, pairs: int, waterfall: bool) -> dict:
    context = browser.new_context(viewport=VIEWPORT)
    context.add_cookies([{"name": "sessionid", "value": session_key, "url": base_url}])
    page, network = throttled_page(context)
    page.goto(f"{base_url}/work/assignments/{first}/", wait_until="commit")
    ready = page.evaluate("() => window.__benchReady")
    cold_ms = ready["sinceNavigation"]
    cold_waterfall = network.since(ready["at"] - cold_ms, cold_ms)
    cold_phases = {name: round(at, 1) for name, at in ready["phases"].items()}
    next_ms, images, phases = [], [], []
    for _ in range(pairs - 1):
        page.wait_for_selector("body[data-next-prefetched]", state="attached", timeout=120_000)
        page.keyboard.press("1")
        page.keyboard.press("Control+Enter")
        page.wait_for_selector("[data-done]:not([hidden])", timeout=30_000)
        # The next pair is shown in the same document (the prepared page, claimed as it is shown): no navigation.
        mark = page.evaluate("() => { window.__benchNext = window.__benchWatch(); "
                             "return performance.timeOrigin + performance.now(); }")
        page.keyboard.press("Enter")
        ready = page.evaluate("() => window.__benchNext")
        next_ms.append(ready["at"] - mark)
        images.append(ready["images"])
        phases.append({"shown": round(ready["phases"]["shown"] - mark, 1), "claimed": round(ready["phases"]["ready"] - mark, 1),
                       "decoded": round(ready["at"] - mark, 1)})
    result = {"campaign": slug, "cold_first_pair_ms": round(cold_ms, 1), "next_pair_ms": [round(m, 1) for m in next_ms],
              "above_the_fold_images": images, "cold_phases_ms": cold_phases, "next_phases_ms": phases}
    if next_ms:
        result |= {"next_p50_ms": round(statistics.median(next_ms), 1), "next_p95_ms": round(percentile(next_ms, 0.95), 1)}
    if waterfall:
        result["cold_waterfall"] = cold_waterfall
    if waterfall and next_ms:
        result["waterfall"] = network.since(mark)
    context.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5, help="pairs per campaign (next-pair samples: pairs - 1)")
    parser.add_argument("--size", type=int, default=2048, help="image side in pixels")
    parser.add_argument("--waterfall", action="store_true", help="print the last next pair's requests")
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument("--data", type=Path, help="keep the generated images here and reuse them on the next run")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    load = os.getloadavg()
    setup_django(DB)
    from tqdm import tqdm

    with tempfile.TemporaryDirectory(prefix="concord-bench-ws-") as tmp:
        root = Path(tmp)
        images = args.data or root
        os.environ["DJANGO_MEDIA_ROOT"] = str(root / "media")
        steps = tqdm(total=4, desc="data", file=sys.stderr)
        campaigns = {}
        for n, kind in enumerate(("interleaved", "text-to-image")):
            folder = images / kind
            folder.mkdir(parents=True, exist_ok=True)
            jsonl = generate(folder, kind=kind, pairs=args.pairs, size=args.size, first_seed=n * 10_000)
            steps.update()
            slug = f"bench-{kind}"
            manage("import_pairs", str(jsonl), "--campaign", slug, "--format", "concord", "--task", kind,
                   "--schema", "ab-tie", "--overlap", "1")
            manage("prepare_renditions", "--campaign", slug)
            campaigns[kind] = slug
            steps.update()
        steps.close()
        sessions = make_annotators(1)
        manage("campaign_members", campaigns["interleaved"], "--add", "bench-rater-0")
        manage("campaign_members", campaigns["text-to-image"], "--add", "bench-rater-0")
        firsts = {slug: first_claim(slug) for slug in campaigns.values()}
        os.environ["DJANGO_STATIC_ROOT"] = str(root / "static")
        manage("collectstatic", "--noinput", "-v", "0")
        server, base_url = start_gunicorn(DB)
        try:
            warm_server(base_url, sessions[0][0], [f"/work/assignments/{first}/" for first in firsts.values()])
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM)
                results = [run_campaign(browser, base_url, sessions[0][0], slug, firsts[slug], args.pairs, args.waterfall)
                           for slug in campaigns.values()]
                browser.close()
        finally:
            stop_gunicorn(server)
    summary = {"load_average_before": [round(x, 2) for x in load],
               "load_average_after": [round(x, 2) for x in os.getloadavg()], "size": args.size, "results": results}
    if args.json:
        print(json.dumps(summary))
        return
    print(f"load average before {summary['load_average_before']}, after {summary['load_average_after']}; "
          f"{args.size}x{args.size} PNGs; 50 Mbit/s, 20 ms; Chromium 1440x900")
    for result in results:
        print(f"{result['campaign']}: cold first pair {result['cold_first_pair_ms']} ms (target 1500); next pair "
              f"p50 {result.get('next_p50_ms')} ms, p95 {result.get('next_p95_ms')} ms (target 150) over "
              f"{len(result['next_pair_ms'])}: {result['next_pair_ms']}; images above the fold {result['above_the_fold_images']}")
        print(f" phases, ms: cold (HTML received, scripts run and ready flag set, images decoded) "
              f"{result['cold_phases_ms']}; next (shown, claimed, decoded) {result['next_phases_ms']}")
        for title in ("cold_waterfall", "waterfall"):
            if result.get(title):
                print(f" {'cold first pair' if title == 'cold_waterfall' else 'last next pair, from Enter'}:")
                print("\n".join(result[title]))


if __name__ == "__main__":
    main()
