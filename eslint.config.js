// ESLint (flat config) for the browser ES modules under frontend/static: `npm run lint:js`.
// @eslint/js is the rule set ESLint 9 itself depends on at its own exact version, so pinning eslint pins it too.
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    // Third-party code as shipped (see each folder's VERSION.md): not ours to lint, upgraded whole.
    ignores: ["frontend/static/frontend/vendor/**", "**/*.min.js"],
  },
  js.configs.recommended,
  {
    files: ["frontend/static/**/*.js"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "module",
      globals: { ...globals.browser },
    },
  },
  {
    // The console's charts: Chart.js is a classic <script> (vendor/chartjs/chart.umd.min.js) that sets window.Chart.
    files: ["frontend/static/frontend/console/**/*.js"],
    languageOptions: { globals: { Chart: "readonly" } },
  },
  {
    // This file and the unit tests run in Node.
    files: ["eslint.config.js", "tests/js/**/*.mjs"],
    languageOptions: { ecmaVersion: "latest", sourceType: "module", globals: { ...globals.node } },
  },
];
