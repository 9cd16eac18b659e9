// The upload page: send the form to the import API, then follow the job's progress and show its result.
import { watchJob } from "../jobs.js";

const form = document.getElementById("import-form");
const message = document.getElementById("import-message");
const current = document.getElementById("import-current");
const progress = document.getElementById("import-progress");
const resultBox = document.getElementById("import-result");

function cell(row, text) {
  row.appendChild(document.createElement("td")).textContent = text;
}

function showResult(job) {
  resultBox.replaceChildren();
  if (job.status !== "succeeded") {
    resultBox.appendChild(Object.assign(document.createElement("p"), { className: "error", textContent: job.error || job.status }));
    // An import that imported nothing because its rows failed still lists each row's error.
    if (!job.result) return;
  }
  const r = job.result;
  const summary = document.createElement("p");
  summary.className = "summary";
  summary.textContent = `${r.created} created · ${r.duplicates} already present · ${r.annotations_imported} annotations imported · ${r.errors.length} rows failed`;
  resultBox.appendChild(summary);
  if (!r.errors.length) return;
  const table = document.createElement("table");
  table.className = "table import-errors";
  const head = table.createTHead().insertRow();
  cell(head, "Line");
  cell(head, "Problem");
  const body = table.createTBody();
  for (const error of r.errors) {
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
    const fields = body.extra && body.extra.fields ? " " + JSON.stringify(body.extra.fields) : "";
    message.textContent = (body.message || `status ${response.status}`) + fields;
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
