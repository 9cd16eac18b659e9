// The upload page: send the form to the import API, then follow the job's progress and show its result.
import { errorMessage } from "../forms.js";
import { watchJob } from "../jobs.js";

const form = document.getElementById("import-form");
const message = document.getElementById("import-message");
const current = document.getElementById("import-current");
const progress = document.getElementById("import-progress");
const resultBox = document.getElementById("import-result");

function cell(row, text) {
  row.appendChild(document.createElement("td")).textContent = text;
}

// Errors shown here; the import's report page pages through the rest and downloads them all.
const SHOWN_ERRORS = 50;

function showResult(job) {
  resultBox.replaceChildren();
  const status = Object.assign(document.createElement("p"), { className: `import-status status-${job.status}` });
  status.dataset.status = job.status;
  const r = job.result;
  status.textContent = `${job.status}${r && r.summary ? ` · ${r.summary}` : ""}`;
  resultBox.appendChild(status);
  if (job.error) resultBox.appendChild(Object.assign(document.createElement("p"), { className: "error", textContent: job.error }));
  const report = Object.assign(document.createElement("a"), { href: `/imports/${job.id}/`, textContent: `Report of import #${job.id}` });
  if (!r) {
    resultBox.appendChild(report);
    return;
  }
  const failed = r.failed_rows ?? r.errors.length;
  const summary = document.createElement("p");
  summary.className = "summary";
  const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  summary.textContent = `${r.created} created · ${r.duplicates} already present · ${count(r.annotations_imported, "annotation", "annotations")} imported · ${count(failed, "row", "rows")} failed`;
  resultBox.appendChild(summary);
  if (!r.errors.length) {
    resultBox.appendChild(report);
    return;
  }
  const more = document.createElement("p");
  more.className = "more";
  more.append(r.errors.length > SHOWN_ERRORS ? `The first ${SHOWN_ERRORS} errors; all of them on the ` : "The errors, also on the ");
  report.textContent = `report of import #${job.id}`;
  more.append(report, " (CSV and JSON Lines downloads there).");
  resultBox.appendChild(more);
  const table = document.createElement("table");
  table.className = "table import-errors";
  const head = table.createTHead().insertRow();
  cell(head, "Line");
  cell(head, "Problem");
  const body = table.createTBody();
  for (const error of r.errors.slice(0, SHOWN_ERRORS)) {
    const row = body.insertRow();
    cell(row, String(error.line));
    cell(row, error.message);
  }
  resultBox.appendChild(table);
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  message.textContent = "Uploading…";
  const data = new FormData(form);
  for (const box of form.querySelectorAll("input[type=checkbox]")) data.set(box.name, box.checked ? "true" : "false");
  const response = await fetch(form.action, {
    method: "POST",
    body: data,
    headers: { "X-CSRFToken": data.get("csrfmiddlewaretoken"), Accept: "application/json" },
    credentials: "same-origin",
  });
  const body = await response.json().catch(() => ({ message: `status ${response.status}` }));
  if (!response.ok) {
    message.textContent = errorMessage(form, body, response.status);
    message.className = "message error";
    return;
  }
  message.textContent = "";
  message.className = "message";
  current.hidden = false;
  document.getElementById("import-name").textContent = `#${body.id} · ${body.params.filename}`;
  progress.replaceChildren();
  resultBox.replaceChildren();
  progress.dataset.jobProgress = body.id;
  watchJob(progress, { onDone: showResult });
});
