import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../src/index.js";
import { KIT_ROOT } from "../src/paths.js";
import { docFiles, runnableBlocks } from "./docs-blocks.js";
import { BLOCK_LIMIT_MS, blockProblem } from "./run-block.js";

// Every shell block of README.md and docs/*.md marked `<!-- runnable -->` runs as written (npm test
// builds dist/ first), with bash -eo pipefail as a GitHub Actions step does, from a folder laid out as
// a clone, against a reference server started here on a free port. A block fails on another exit
// code than its marker's, on its time limit, or when it leaves a process behind (test/run-block.ts).
// Blocks marked `installed` run in test/package.test.ts, in a project that installed the packed kit.

const files = docFiles(KIT_ROOT);
const all = files.map((file) => ({ file, blocks: runnableBlocks(KIT_ROOT, file) }));
const blocks = all
  .map((f) => ({ file: f.file, blocks: f.blocks.filter((b) => !b.installed) }))
  .filter((f) => f.blocks.length > 0);
let ran = 0;

let server: ReferenceServer | undefined;

beforeAll(async () => {
  server = await startReferenceServer({ host: "127.0.0.1", port: 0 });
});

afterAll(async () => {
  await server?.close();
  const total = blocks.reduce((n, f) => n + f.blocks.length, 0);
  const installed = all.reduce((n, f) => n + f.blocks.filter((b) => b.installed).length, 0);
  console.log(
    `docs-commands: ran ${ran} of ${total} runnable shell blocks, from ${blocks.length} of ${files.length} Markdown files` +
      ` (and ${installed} marked installed: test/package.test.ts runs those)`,
  );
});

/** A folder laid out as a clone of the repository after `npm run build`. */
function cloneFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "docs-clone-"));
  for (const entry of ["dist", "spec", "fixtures", "conformance", "test", "node_modules", "package.json"])
    symlinkSync(join(KIT_ROOT, entry), join(dir, entry));
  return dir;
}

describe("runnable shell blocks of the README and docs/", () => {
  // One test per document, the documents side by side; a document's blocks run in order, in one
  // folder, as a reader following it would.
  it.concurrent.for(blocks.map((f) => [f.file, f.blocks] as const))(
    "%s: every runnable block runs as written",
    { timeout: BLOCK_LIMIT_MS * 4 },
    async ([, inFile], { expect }) => {
      const folder = cloneFolder();
      try {
        for (const block of inFile) {
          const problem = await blockProblem(block, folder, Number(new URL(server!.url).port));
          ran++;
          expect(problem).toBeUndefined();
        }
      } finally {
        rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
      }
    },
  );
});
