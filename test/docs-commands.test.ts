import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../src/index.js";
import { KIT_ROOT } from "../src/paths.js";
import { DOC_PORTS, docFiles, runnableBlocks, withPorts } from "./docs-blocks.js";

// Every shell block of README.md and docs/*.md marked `<!-- runnable -->` runs as written (npm test
// builds dist/ first), with bash -eo pipefail as a GitHub Actions step does, from a folder laid out as
// a clone (or, marked `installed`, as a project that installed the kit), against a reference server
// started here on a free port. A block fails on another exit code than its marker's, on its time
// limit, or when it leaves a process behind. See test/docs-blocks.ts for the marker.

// A hang guard, not a speed target: a busy CI machine runs the Prism block in 15 to 30 s.
const BLOCK_LIMIT_MS = 90_000;
const files = docFiles(KIT_ROOT);
const blocks = files
  .map((file) => ({ file, blocks: runnableBlocks(KIT_ROOT, file) }))
  .filter((f) => f.blocks.length > 0);
let ran = 0;

let server: ReferenceServer | undefined;

beforeAll(async () => {
  server = await startReferenceServer({ host: "127.0.0.1", port: 0 });
});

afterAll(async () => {
  await server?.close();
  const total = blocks.reduce((n, f) => n + f.blocks.length, 0);
  console.log(
    `docs-commands: ran ${ran} of ${total} runnable shell blocks, from ${blocks.length} of ${files.length} Markdown files`,
  );
});

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A folder laid out as a clone of the repository after `npm run build`. */
function cloneFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "docs-clone-"));
  for (const entry of ["dist", "spec", "fixtures", "conformance", "test", "node_modules", "package.json"])
    symlinkSync(join(KIT_ROOT, entry), join(dir, entry));
  return dir;
}

/**
 * A folder laid out as a project that installed the kit: `npx plantstore` finds its bin there. npm
 * links the bin to an executable copy of bin.js; the build's bin.js is not executable, so the link
 * is a script that execs node on it, which the shell and signals treat the same way.
 */
function installedFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "docs-installed-"));
  mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true });
  symlinkSync(KIT_ROOT, join(dir, "node_modules", "plantstore-kit"));
  const bin = join(dir, "node_modules", "plantstore-kit", "dist", "src", "cli", "bin.js");
  writeFileSync(join(dir, "node_modules", ".bin", "plantstore"), `#!/bin/sh\nexec node "${bin}" "$@"\n`, {
    mode: 0o755,
  });
  return dir;
}

/** Whether any process of the group is still alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

interface BlockRun {
  readonly code: number | null;
  readonly output: string;
  readonly timedOut: boolean;
  readonly leftBehind: boolean;
}

/** Runs one block in its own process group, so a hang or a process left behind can be seen and ended. */
async function runBlock(script: string, cwd: string): Promise<BlockRun> {
  // As a new user's shell: none of the kit's variables set beforehand.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PLANTSTORE_")));
  const child = spawn("bash", ["-eo", "pipefail", "-c", script], {
    cwd,
    env: { ...env, NO_COLOR: "1" },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c.toString("utf8")));
  child.stderr.on("data", (c: Buffer) => (output += c.toString("utf8")));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (groupAlive(child.pid!)) process.kill(-child.pid!, "SIGKILL");
  }, BLOCK_LIMIT_MS);
  const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  clearTimeout(timer);
  // A process the block started and did not stop keeps the group alive; give a stopping one a moment.
  let leftBehind = false;
  for (let i = 0; i < 20 && groupAlive(child.pid!); i++) await new Promise((r) => setTimeout(r, 100));
  if (groupAlive(child.pid!)) {
    leftBehind = true;
    process.kill(-child.pid!, "SIGKILL");
  }
  return { code, output, timedOut, leftBehind };
}

describe("runnable shell blocks of the README and docs/", () => {
  // One test per document, the documents side by side; a document's blocks run in order, in one
  // folder, as a reader following it would.
  it.concurrent.for(blocks.map((f) => [f.file, f.blocks] as const))(
    "%s: every runnable block runs as written",
    { timeout: BLOCK_LIMIT_MS * 4 },
    async ([file, inFile], { expect }) => {
      const folders = new Map<boolean, string>();
      try {
        for (const block of inFile) {
          if (!folders.has(block.installed))
            folders.set(block.installed, block.installed ? installedFolder() : cloneFolder());
          const started: Record<number, number> = { 4010: Number(new URL(server!.url).port) };
          const free: Record<number, number> = {};
          for (const port of DOC_PORTS) free[port] = await freePort();
          const result = await runBlock(withPorts(block.script, started, free), folders.get(block.installed)!);
          ran++;
          const where = `${file}:${block.line}`;
          expect(result.timedOut, `${where} still ran after ${BLOCK_LIMIT_MS} ms:\n${result.output}`).toBe(false);
          expect(result.code, `${where} exited ${result.code}:\n${result.output}`).toBe(block.exit);
          expect(result.leftBehind, `${where} left a process running:\n${result.output}`).toBe(false);
        }
      } finally {
        for (const dir of folders.values()) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
      }
    },
  );
});
