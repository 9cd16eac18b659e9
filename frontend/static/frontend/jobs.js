// Live progress for background jobs: <div data-job-progress="ID"> polls /api/v1/jobs/ID/; with
// data-job-done="reload" the page reloads once the job has succeeded (it then shows what the job made).
// The label names the job's own units (bytes, verdicts, steps, pairs, rows) with the rate and the time left,
// measured between polls; a failed job shows its reason.
const BYTE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];
// A job in one of these is over (annotation.jobs.models.JOB_FINISHED): partial is an import some of whose rows failed.
export const FINISHED = ["succeeded", "partial", "failed", "cancelled"];

export function formatCount(value, unit) {
  if (unit !== "bytes") return `${Number(value).toLocaleString("en")}`;
  let size = Number(value);
  let index = 0;
  while (size >= 1024 && index < BYTE_UNITS.length - 1) { size /= 1024; index += 1; }
  return `${index === 0 ? size : size.toFixed(1)} ${BYTE_UNITS[index]}`;
}

export function formatDuration(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0) return "";
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
}

export function progressText(job, rate) {
  const unit = job.unit || "items";
  const done = formatCount(job.progress_done, unit);
  const total = job.progress_total ? formatCount(job.progress_total, unit) : "";
  const units = unit === "bytes" ? "" : ` ${unit}`;
  let text = `${job.status} · ${done}${total ? " / " + total : ""}${units}`;
  if (job.status === "running" && rate > 0) {
    text += ` · ${formatCount(Math.round(rate), unit)}${units}/s`;
    if (job.progress_total) text += ` · ${formatDuration((job.progress_total - job.progress_done) / rate)} left`;
  }
  if (job.error) text += ` · ${job.error}`;
  return text;
}

export function watchJob(element, { interval = 700, onDone } = {}) {
  const id = element.dataset.jobProgress;
  const bar = element.querySelector("progress") || element.appendChild(document.createElement("progress"));
  const label = element.querySelector(".job-label") || element.appendChild(Object.assign(document.createElement("span"), { className: "job-label" }));
  bar.max = 100;
  let first = null;
  const tick = async () => {
    const response = await fetch(`/api/v1/jobs/${id}/`, { headers: { Accept: "application/json" } });
    if (!response.ok) { label.textContent = `status ${response.status}`; return; }
    const job = await response.json();
    const now = performance.now();
    let rate = 0;
    if (job.status === "running") {
      if (first === null) first = { at: now, done: job.progress_done };
      else if (now > first.at) rate = ((job.progress_done - first.done) * 1000) / (now - first.at);
    }
    if (job.percent === null) bar.removeAttribute("value"); else bar.value = job.percent;
    label.textContent = progressText(job, rate);
    element.dataset.status = job.status;
    if (FINISHED.includes(job.status)) {
      if (onDone) onDone(job);
      return;
    }
    setTimeout(tick, interval);
  };
  tick();
}

function reloadOnSuccess(job) {
  if (job.status === "succeeded") window.location.reload();
}

document.querySelectorAll("[data-job-progress]").forEach((el) => watchJob(el, el.dataset.jobDone === "reload" ? { onDone: reloadOnSuccess } : {}));
