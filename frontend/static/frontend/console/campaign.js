// Campaign overview: follow each pipeline job (pre-filter, agreement, consensus) live; when one that was
// still running finishes, reload the page so the funnel and the job's result show the new numbers.
import { FINISHED, watchJob } from "../jobs.js";

document.querySelectorAll("[data-pipeline-job]").forEach((element) => {
  const wasRunning = !FINISHED.includes(element.dataset.status);
  element.dataset.jobProgress = element.dataset.pipelineJob;
  watchJob(element, {
    onDone: () => {
      if (wasRunning) window.location.reload();
    },
  });
});
