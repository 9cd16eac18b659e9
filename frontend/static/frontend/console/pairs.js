// Pair browser: the header checkbox selects or clears every pair on the page for a bulk action.
const all = document.getElementById("select-all");
const boxes = () => [...document.querySelectorAll('#bulk-form input[name="pair"]')];

if (all) {
  all.addEventListener("change", () => boxes().forEach((box) => { box.checked = all.checked; }));
  document.getElementById("bulk-form").addEventListener("change", (event) => {
    if (event.target.name === "pair") all.checked = boxes().every((box) => box.checked);
  });
}
