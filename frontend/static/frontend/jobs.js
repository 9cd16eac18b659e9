// Live progress for background jobs: <div data-job-progress="ID"> polls /api/v1/jobs/ID/.
export function watchJob(element, { interval = 700, onDone } = {}) {
  const id = element.dataset.jobProgress;
  const bar = element.querySelector("progress") || element.appendChild(document.createElement("progress"));
  const label = element.querySelector(".job-label") || element.appendChild(Object.assign(document.createElement("span"), { className: "job-label" }));
  bar.max = 100;
  const tick = async () => {
    const response = await fetch(`/api/v1/jobs/${id}/`, { headers: { Accept: "application/json" } });
    if (!response.ok) { label.textContent = `status ${response.status}`; return; }
    const job = await response.json();
    if (job.percent === null) bar.removeAttribute("value"); else bar.value = job.percent;
    label.textContent = `${job.status} · ${job.progress_done}${job.progress_total ? " / " + job.progress_total : ""}`;
    element.dataset.status = job.status;
    if (["succeeded", "failed", "cancelled"].includes(job.status)) {
      if (job.error) label.textContent += ` · ${job.error}`;
      if (onDone) onDone(job);
      return;
    }
    setTimeout(tick, interval);
  };
  tick();
}

document.querySelectorAll("[data-job-progress]").forEach((el) => watchJob(el));
