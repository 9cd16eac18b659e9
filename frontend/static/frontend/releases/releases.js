// Publish form: POST to the API, then follow the build's job with the shared live progress bar.
import { watchJob } from "../jobs.js";

const form = document.getElementById("publish-form");
if (form) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = document.getElementById("publish-error");
    const progress = document.getElementById("publish-progress");
    error.textContent = "";
    const data = new FormData(form);
    const body = {
      name: data.get("name"),
      version: data.get("version"),
      campaigns: data.getAll("campaigns"),
      license: data.get("license") || "",
      force_license: data.get("force_license") === "true",
    };
    if (!body.campaigns.length) { error.textContent = "Choose at least one campaign."; return; }
    form.querySelector("button[type=submit]").disabled = true;
    const response = await fetch(form.dataset.api, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json",
                 "X-CSRFToken": data.get("csrfmiddlewaretoken") },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (!response.ok) {
      error.textContent = answer.message || `status ${response.status}`;
      form.querySelector("button[type=submit]").disabled = false;
      return;
    }
    progress.hidden = false;
    progress.dataset.jobProgress = answer.job;
    watchJob(progress, { onDone: (job) => {
      // The release's own page confirms the publication and offers its files for download.
      if (job.status === "succeeded") window.location.assign(`${answer.release.page}?published=1`);
      else form.querySelector("button[type=submit]").disabled = false;
    } });
  });
}
