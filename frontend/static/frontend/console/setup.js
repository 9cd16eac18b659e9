// The campaign form: a live preview of the rater's form (from the preset or the custom JSON) and of the
// Markdown instructions, both rendered by Concord itself so the preview is exactly what raters get.
const form = document.querySelector("[data-campaign-form]");

function debounce(fn, ms = 300) {
  let timer;
  return () => { clearTimeout(timer); timer = setTimeout(fn, ms); };
}

async function post(url, fields) {
  const body = new FormData();
  body.append("csrfmiddlewaretoken", form.querySelector("[name=csrfmiddlewaretoken]").value);
  for (const [key, value] of Object.entries(fields)) body.append(key, value);
  const response = await fetch(url, { method: "POST", body, headers: { Accept: "application/json" } });
  return response.json();
}

if (form) {
  const schemaPreview = form.querySelector("[data-schema-preview]");
  const schemaError = form.querySelector("[data-schema-error]");
  const markdownPreview = form.querySelector("[data-markdown-preview]");
  const source = () => form.querySelector("[data-schema-source]:checked")?.value || "preset";
  const schemaFields = () => ({
    schema_source: source(),
    kind: form.querySelector("[data-kind]").value,
    preset: form.querySelector("[data-preset]").value,
    schema_json: form.querySelector("[data-schema-json]").value,
  });

  // Only the answer to the latest change is shown: an earlier request answered late must not overwrite it.
  let schemaAsked = 0;
  const refreshSchema = async () => {
    const ticket = ++schemaAsked;
    const result = await post(form.dataset.previewForm, schemaFields());
    if (ticket !== schemaAsked) return;
    schemaError.hidden = !result.error;
    schemaError.textContent = result.error || "";
    if (result.html) {
      schemaPreview.innerHTML = result.html;
      schemaPreview.dataset.definition = JSON.stringify(result.definition);
    }
    form.dataset.previewState = result.error ? "error" : "ok";
  };
  let markdownAsked = 0;
  const refreshMarkdown = async () => {
    const ticket = ++markdownAsked;
    const result = await post(form.dataset.previewMarkdown, { text: form.querySelector("[data-instructions]").value });
    if (ticket === markdownAsked) markdownPreview.innerHTML = result.html;
  };

  // A preset's data-kinds lists the kinds its questions fit (empty: every kind). The option the page was rendered
  // with stays, so a refused choice is still shown beside the reason.
  const presetsForKind = () => {
    const kind = form.querySelector("[data-kind]").value;
    const select = form.querySelector("[data-preset]");
    for (const option of select.querySelectorAll("option[data-kinds]")) {
      const kinds = option.dataset.kinds.split(" ").filter(Boolean);
      option.hidden = option.disabled = kinds.length > 0 && !kinds.includes(kind) && !option.defaultSelected;
    }
    if (select.selectedOptions[0]?.disabled) select.value = "";
  };

  const schemaLater = debounce(refreshSchema);
  form.querySelector("[data-kind]").addEventListener("change", presetsForKind);
  form.querySelectorAll("[data-kind], [data-preset], [data-schema-source]").forEach((el) => el.addEventListener("change", refreshSchema));
  form.querySelector("[data-schema-json]").addEventListener("input", () => {
    const custom = form.querySelector("[data-schema-source][value=custom]");
    if (!custom.checked) custom.checked = true;
    schemaLater();
  });
  form.querySelector("[data-instructions]").addEventListener("input", debounce(refreshMarkdown));
  form.querySelector("[data-copy-preset]").addEventListener("click", async () => {
    const result = await post(form.dataset.previewForm, { ...schemaFields(), schema_source: "preset" });
    if (!result.definition) return;
    const { questions } = result.definition;
    form.querySelector("[data-schema-json]").value = JSON.stringify({ questions }, null, 2);
    form.querySelector("[data-schema-source][value=custom]").checked = true;
    refreshSchema();
  });
  presetsForKind();
  refreshSchema();
  refreshMarkdown();
}
