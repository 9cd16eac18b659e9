// Draws every dashboard figure with Chart.js (served from Concord's own static files) from the
// rows the page embeds as JSON; the same rows download as CSV.
// The campaign filter applies as soon as it changes (a listener here: the Content-Security-Policy allows no inline handler).
for (const select of document.querySelectorAll("[data-submit-on-change]")) {
  select.addEventListener("change", () => select.form.submit());
}

const data = JSON.parse(document.getElementById("dashboard-data").textContent);
const { Chart } = window;
const accent = "#2f5bd3";
const band = "rgba(47, 91, 211, 0.18)";
const percent = { min: 0, max: 1, ticks: { callback: (v) => `${Math.round(v * 100)}%` } };

function interval(row) {
  return row.low === null || row.low === undefined ? "" : ` [${(row.low * 100).toFixed(1)}%, ${(row.high * 100).toFixed(1)}%]`;
}

const rateTooltip = (rows) => ({
  callbacks: { label: (ctx) => `${(ctx.parsed.y * 100).toFixed(1)}%${interval(rows[ctx.dataIndex])} n=${rows[ctx.dataIndex].n}` },
});

// A rate per category, with its 95% interval drawn as a pale floating bar behind it.
function rateBars(rows, labelOf) {
  return {
    type: "bar",
    data: {
      labels: rows.map(labelOf),
      datasets: [
        { label: "rate", data: rows.map((r) => r.rate), backgroundColor: accent, order: 1 },
        { label: "95% interval", data: rows.map((r) => [r.low, r.high]), backgroundColor: band, grouped: false, order: 2 },
      ],
    },
    options: { scales: { y: percent }, plugins: { tooltip: rateTooltip(rows) } },
  };
}

const builders = {
  "annotations-per-day": (rows) => ({
    type: "bar",
    data: { labels: rows.map((r) => r.day), datasets: [{ label: "annotations", data: rows.map((r) => r.annotations), backgroundColor: accent }] },
    options: { plugins: { legend: { display: false } } },
  }),
  "work-per-day": (rows) => ({
    type: "bar",
    data: {
      labels: rows.map((r) => r.day),
      datasets: [["submitted", accent], ["skipped", "#f79009"], ["expired", "#d92d20"], ["claimed", "#98a2b3"]].map(([key, colour]) => ({
        label: key, data: rows.map((r) => r[key]), backgroundColor: colour, stack: key === "claimed" ? "claims" : "outcomes",
      })),
    },
    options: { scales: { x: { stacked: true }, y: { stacked: true } } },
  }),
  "annotations-per-annotator": (rows) => ({
    type: "bar",
    data: { labels: rows.map((r) => r.annotator), datasets: [{ label: "annotations", data: rows.map((r) => r.annotations), backgroundColor: accent }] },
    options: { indexAxis: "y", plugins: { legend: { display: false } } },
  }),
  "agreement-over-time": (rows) => {
    // One x position per report (reports can share a minute), labelled with its time.
    const times = [...new Set(rows.map((r) => r.computed_at))].sort();
    const series = [...new Set(rows.map((r) => `${r.campaign} · ${r.metric}`))];
    const datasets = [];
    series.forEach((key) => {
      const byTime = new Map(rows.filter((r) => `${r.campaign} · ${r.metric}` === key).map((r) => [r.computed_at, r]));
      const points = (field) => times.map((t) => (byTime.has(t) ? byTime.get(t)[field] : null));
      datasets.push({ label: `${key} (low)`, data: points("low"), borderWidth: 0, pointRadius: 0, fill: false, spanGaps: true });
      datasets.push({ label: `${key} (95% band)`, data: points("high"), borderWidth: 0, pointRadius: 0, backgroundColor: band,
        fill: "-1", spanGaps: true });
      datasets.push({ label: key, data: points("value"), borderColor: accent, backgroundColor: accent, fill: false, spanGaps: true });
    });
    return {
      type: "line",
      data: { labels: times.map((t) => t.slice(0, 19).replace("T", " ")), datasets },
      options: { plugins: { legend: { labels: { filter: (item) => !item.text.endsWith("(low)") } } } },
    };
  },
  // A judge that gave no verdict (every call failed or unreadable) has no rate: no bar, and says so.
  "judge-human-agreement": (rows) => rateBars(rows, (r) => `${r.judge} · ${r.task}${r.rate === null ? " (no verdicts)" : ""}`),
  "judge-position-bias": (rows) => ({
    type: "bar",
    data: { labels: rows.map((r) => r.judge), datasets: [
      { label: "picks first shown", data: rows.map((r) => r.first_position_share), backgroundColor: accent },
      { label: "same verdict after swap", data: rows.map((r) => r.consistent_after_swap), backgroundColor: "#98a2b3" },
    ] },
    options: { scales: { y: percent } },
  }),
  "human-position-bias": (rows) => rateBars(rows, (r) => r.annotator),
  "time-on-item": (rows) => ({
    type: "bar",
    data: { labels: rows.map((r) => r.bucket), datasets: [{ label: "annotations", data: rows.map((r) => r.annotations), backgroundColor: accent }] },
    options: { plugins: { legend: { display: false } } },
  }),
  "prefilter-drop-rate": (rows) => rateBars(rows, (r) => r.source),
};

document.querySelectorAll("[data-figure]").forEach((section) => {
  const name = section.dataset.figure;
  const canvas = section.querySelector("canvas");
  const figure = data[name];
  if (!canvas || !figure || !builders[name]) return;
  const config = builders[name](figure.rows);
  config.options = { responsive: true, maintainAspectRatio: false, animation: false, ...config.options };
  new Chart(canvas, config);
  section.dataset.rendered = "true";
});
