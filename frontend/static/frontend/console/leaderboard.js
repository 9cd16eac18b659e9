// Draws the model leaderboard with Chart.js (served by Concord): each model's rating as a point over
// its 95% bootstrap interval as a pale floating bar. The rows come embedded in the page as JSON.
const data = JSON.parse(document.getElementById("leaderboard-data").textContent);
const { Chart } = window;
const canvas = document.getElementById("leaderboard-chart");

if (Chart && canvas && data) {
  const models = data.models;
  new Chart(canvas, {
    type: "bar",
    data: {
      labels: models.map((m) => m.model),
      datasets: [
        { type: "line", label: "rating", data: models.map((m) => m.rating), showLine: false, pointRadius: 5,
          backgroundColor: "#2f5bd3", borderColor: "#2f5bd3", order: 1 },
        { label: "95% interval", data: models.map((m) => (m.rating_ci95 ? m.rating_ci95 : null)),
          backgroundColor: "rgba(47, 91, 211, 0.18)", order: 2 },
      ],
    },
    options: {
      // No growing bars: a rating read mid-animation (or in a screenshot) would be a wrong number.
      animation: false,
      maintainAspectRatio: false,
      scales: { y: { title: { display: true, text: "Bradley–Terry rating (Elo scale)" } } },
      plugins: {
        tooltip: {
          callbacks: {
            label: (ctx) => {
              const m = models[ctx.dataIndex];
              const ci = m.rating_ci95 ? ` [${Math.round(m.rating_ci95[0])}, ${Math.round(m.rating_ci95[1])}]` : "";
              return `${Math.round(m.rating)}${ci} · ${m.comparisons} comparisons`;
            },
          },
        },
      },
    },
  });
}
