// Makes docs/html-report.png, the README's picture of `--report html=FILE`. The picture is not drawn
// here: the browser test of the report (src/harness/reporters/html-browser.test.ts) runs the built CLI
// against a server with two faults of the catalogue, opens the HTML report in the tests' headless
// Chromium, offline, checks what it shows, and keeps its screenshot where PLANTSTORE_HTML_SCREENSHOT
// says. So the README shows a report the tests have checked, made by the same run and the same browser.
//
//   npm run build && node scripts/screenshot-report.mjs
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "docs", "html-report.png");
if (!existsSync(join(root, "dist", "src", "cli", "bin.js"))) {
  console.error("no build: run npm run build first (the test runs the built CLI)");
  process.exit(2);
}
mkdirSync(dirname(out), { recursive: true });
const test = "src/harness/reporters/html-browser.test.ts";
const run = spawnSync(
  process.execPath,
  [join(root, "node_modules", "vitest", "vitest.mjs"), "run", test, "-t", "shows the verdict"],
  { cwd: root, stdio: "inherit", env: { ...process.env, PLANTSTORE_HTML_SCREENSHOT: out } },
);
if (run.status !== 0) {
  console.error(`${test} failed: no screenshot written`);
  process.exit(1);
}
console.log(`wrote ${out} (${statSync(out).size} bytes)`);
