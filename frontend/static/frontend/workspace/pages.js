// Shortcuts of the campaign list and the queue page.
import { bind } from "./keys.js";

// Progress bars carry their width as data: the Content-Security-Policy refuses inline style attributes.
for (const bar of document.querySelectorAll(".progress-bar > [data-percent]")) {
  bar.style.width = `${Number(bar.dataset.percent) || 0}%`;
}

const start = document.querySelector("[data-start-form]");
if (start) bind(["Enter"], { run: () => start.requestSubmit() });
const instructions = document.querySelector("[data-instructions]");
if (instructions) bind(["i"], { run: () => { instructions.open = !instructions.open; } });
for (const link of document.querySelectorAll("[data-campaign-key]")) {
  bind([link.dataset.campaignKey], { run: () => link.click() });
}
