import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { isProcessAlive } from "./process.js";

// vitest globalSetup: the whole run (workers, the CLI processes they spawn, Prism, the bench) gets a
// temp folder of its own, through TMPDIR, which every process of the run inherits and os.tmpdir()
// reads. Whatever is left in it at the end was leaked by this run and by nothing else: a second run
// on the same machine has its own folder, so it can neither fail this one nor have its folders
// deleted under it.

const RUN_PREFIX = "plantstore-run-";
const OWNER = ".owner.json";
/**
 * Not a test's folder: Node 22 and later keep their module compile cache in os.tmpdir() when a tool
 * (npm, TypeScript, vitest) turns it on without naming a folder; it goes with the run's folder.
 */
const NODE_OWN = new Set([OWNER, "node-compile-cache"]);
const VARIABLES = ["TMPDIR", "TMP", "TEMP"] as const;

interface Owner {
  readonly pid: number;
  readonly host: string;
}

/** Removes the folders of earlier runs that died before their teardown (SIGKILL, a crashed CI job). */
function sweepDeadRuns(shared: string): void {
  for (const name of readdirSync(shared)) {
    if (!name.startsWith(RUN_PREFIX)) continue;
    let owner: Owner;
    try {
      owner = JSON.parse(readFileSync(join(shared, name, OWNER), "utf8")) as Owner;
    } catch {
      continue; // not ours to judge, or a run that has not written its owner yet
    }
    // Another host (a container sharing /tmp) has its own process ids: its runs are never swept from here.
    if (owner.host === hostname() && !isProcessAlive(owner.pid))
      rmSync(join(shared, name), { recursive: true, force: true });
  }
}

/** Gives the run its own temp folder; the teardown fails the run naming anything left in it, then removes it. */
export default function setup(): () => void {
  const shared = tmpdir();
  sweepDeadRuns(shared);
  const root = mkdtempSync(join(shared, RUN_PREFIX));
  writeFileSync(join(root, OWNER), JSON.stringify({ pid: process.pid, host: hostname() } satisfies Owner));
  const saved = VARIABLES.map((v) => [v, process.env[v]] as const);
  for (const v of VARIABLES) process.env[v] = root;

  return () => {
    for (const [v, value] of saved) {
      if (value === undefined) delete process.env[v];
      else process.env[v] = value;
    }
    const left = readdirSync(root)
      .filter((name) => !NODE_OWN.has(name))
      .sort();
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    if (left.length === 0) return;
    // A teardown error is only logged by vitest 4; the exit code is what CI sees.
    process.exitCode = 1;
    throw new Error(
      `the tests left ${left.length} temporary folder(s) behind (now removed); make them with tempDir() from test/temp-dir.ts:\n${left.map((n) => `  ${n}`).join("\n")}`,
    );
  };
}
