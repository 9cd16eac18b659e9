// Publish form: POST to the API, then follow the build's job with the shared live progress bar.
import { errorMessage } from "../forms.js";
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
      media: data.get("media") || "embedded",
    };
    // The held-out split goes with a share only, as publish_release's --private-seed and --private-rows do.
    const share = data.get("private_split");
    if (share) {
      body.private_split = Number(share);
      body.private_rows = data.get("private_rows") || "unlabelled";
      if (data.get("private_seed")) body.private_seed = Number(data.get("private_seed"));
    } else if (data.get("private_seed") || data.get("private_rows") === "omit") {
      error.textContent = "A seed or held-out rows go with a share held out."; return;
    }
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
      error.textContent = errorMessage(form, answer, response.status);
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

// Verify: start the background job that re-reads the release's files, follow it, then say what it found.
function verifyOutcome(job) {
  if (job.status !== "succeeded") return job.error || `Verification ${job.status}.`;
  const { ok, files_checked: checked, mismatches } = job.result;
  const whole = job.result.archive || {};
  if (ok) return `All ${checked} files match the manifest` + (whole.checked ? "; the download zip has its recorded sha256." : ".");
  const named = mismatches.slice(0, 5).map((m) => `${m.path} (${m.problem})`).join(", ");
  return `${mismatches.length} of ${checked} files do not match: ${named}${mismatches.length > 5 ? ", …" : ""}`;
}

document.querySelectorAll(".verify[data-api]").forEach((box) => {
  const button = box.querySelector("button");
  const progress = box.querySelector(".job");
  const result = box.querySelector(".verify-result");
  button.addEventListener("click", async () => {
    button.disabled = true;
    result.textContent = "";
    const token = document.querySelector("[name=csrfmiddlewaretoken]").value;
    const response = await fetch(box.dataset.api, {
      method: "POST", headers: { Accept: "application/json", "X-CSRFToken": token },
    });
    const answer = await response.json();
    if (!response.ok) {
      result.textContent = answer.message || `status ${response.status}`;
      button.disabled = false;
      return;
    }
    progress.hidden = false;
    progress.dataset.jobProgress = answer.id;
    watchJob(progress, { onDone: (job) => {
      result.textContent = verifyOutcome(job);
      box.dataset.outcome = job.status === "succeeded" && job.result.ok ? "ok" : "mismatch";
      button.disabled = false;
    } });
  });
});

// Discard: a failed attempt's stored files are deleted and its version opens for any campaigns (asks first).
document.querySelectorAll(".discard[data-api]").forEach((box) => {
  const button = box.querySelector("button");
  const result = box.querySelector(".discard-result");
  button.addEventListener("click", async () => {
    const name = box.closest("tr").dataset.release;
    if (!window.confirm(`Discard the failed attempt of ${name}? Every file it stored is deleted.`)) return;
    button.disabled = true;
    const token = document.querySelector("[name=csrfmiddlewaretoken]").value;
    const response = await fetch(box.dataset.api, {
      method: "POST", headers: { Accept: "application/json", "X-CSRFToken": token },
    });
    const answer = await response.json();
    result.textContent = response.ok ? answer.error : (answer.message || `status ${response.status}`);
    if (!response.ok) button.disabled = false;
  });
});
