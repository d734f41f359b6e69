import { join } from "node:path";
import { parseArgs } from "node:util";
import { KIT_ROOT } from "../src/paths.js";
import { runBench, SECTIONS, type Section } from "./run.js";

// npm run bench [-- --smoke] [-- --only servers,reads,startup,memory,harness,proxy] [-- --out FILE]
// [-- --compare DIR]: DIR a copy of the kit with an earlier commit's build in DIR/dist (see run.ts).
const { values } = parseArgs({
  options: {
    smoke: { type: "boolean" },
    only: { type: "string" },
    out: { type: "string" },
    compare: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
  strict: true,
});
if (values.help) {
  process.stdout.write(
    `Usage: npm run bench -- [--smoke] [--only ${SECTIONS.join(",")}] [--out FILE] [--compare DIR]\n`,
  );
  process.exit(0);
}
const sections = (values.only ?? SECTIONS.join(",")).split(",").map((s) => s.trim()) as Section[];
for (const s of sections) if (!SECTIONS.includes(s)) throw new Error(`--only: unknown section ${s}`);
const out = values.out ?? join(KIT_ROOT, "bench", "results", "latest.json");
const compare = values.compare;
await runBench({ sections, smoke: values.smoke === true, out, ...(compare === undefined ? {} : { compare }) }, (line) =>
  process.stdout.write(line + "\n"),
);
