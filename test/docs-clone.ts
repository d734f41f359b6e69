import { execFileSync, spawn } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  type Stats,
} from "node:fs";
import { devNull } from "node:os";
import { dirname, join } from "node:path";
import { freshEnv, groupAlive } from "./run-block.js";

// The fresh clone test/docs-commands.test.ts runs the docs in, and the servers a reader keeps running
// in other terminals while following them.

/** git in the clone: no system or user configuration (hooks, signing, a global excludes file). */
function gitInClone(args: readonly string[], cwd: string, input?: string): string {
  return execFileSync("git", args, {
    cwd,
    input,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: devNull,
      GIT_AUTHOR_NAME: "docs test",
      GIT_AUTHOR_EMAIL: "docs-test@example.invalid",
      GIT_COMMITTER_NAME: "docs test",
      GIT_COMMITTER_EMAIL: "docs-test@example.invalid",
    },
  });
}

/**
 * Makes `dest` (an empty folder) a fresh clone of the repository at `root` as its working tree is
 * now: every tracked file, with the changes not committed yet (a clone of HEAD would test the docs
 * of the last commit), committed in a new repository; then dist/ copied from `root` (as
 * `npm run build` leaves it; the CLI resolves the spec and fixtures next to the dist/ it runs from,
 * so it must be the clone's own) and node_modules linked (ignored, as a worktree's link is).
 * Reading `root` takes no lock (GIT_OPTIONAL_LOCKS=0): a `git add` beside the test never fails on it.
 */
export function makeClone(root: string, dest: string): void {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
  })
    .split("\0")
    .filter((f) => f !== "");
  const copied: string[] = [];
  for (const file of [...new Set(listed)]) {
    let stat: Stats;
    try {
      stat = lstatSync(join(root, file));
    } catch {
      continue; // deleted in the working tree, not yet in the index
    }
    mkdirSync(dirname(join(dest, file)), { recursive: true });
    if (stat.isSymbolicLink()) symlinkSync(readlinkSync(join(root, file)), join(dest, file));
    else if (stat.isFile()) copyFileSync(join(root, file), join(dest, file));
    else continue;
    copied.push(file);
  }
  gitInClone(["init", "-q", "-b", "main"], dest);
  // Exactly the tracked files, even one an ignore rule would now leave out.
  gitInClone(["add", "-f", "--pathspec-from-file=-", "--pathspec-file-nul"], dest, copied.join("\0"));
  gitInClone(["commit", "-q", "--no-verify", "-m", "the working tree, for the docs test"], dest);
  cpSync(join(root, "dist"), join(dest, "dist"), { recursive: true });
  symlinkSync(join(root, "node_modules"), join(dest, "node_modules"));
}

/** `git status --porcelain` of the clone, ignored files included, one entry a line. */
export function cloneStatus(dest: string): string[] {
  return gitInClone(["status", "--porcelain", "--untracked-files=all", "--ignored"], dest)
    .split("\n")
    .filter((l) => l !== "");
}

/** A server a reader of the docs keeps running in another terminal. */
export interface Background {
  readonly url: string;
  log(): string;
  /** SIGTERM to its process group, SIGKILL if it is still there after 10 s; resolves once it is gone. */
  stop(): Promise<void>;
}

/**
 * Starts `node dist/src/cli/bin.js ARGS --port 0 --ready-file FILE` in `cwd`, in its own process
 * group, and resolves with its URL once FILE holds it, or rejects with its log as soon as it exits
 * without (the caller's hook timeout is the hang guard).
 */
export async function startBackground(cwd: string, args: readonly string[], readyFile: string): Promise<Background> {
  const child = spawn(
    process.execPath,
    [join(cwd, "dist", "src", "cli", "bin.js"), ...args, "--port", "0", "--ready-file", readyFile],
    { cwd, env: freshEnv(), detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  child.stdout.on("data", (c: Buffer) => (log += c.toString("utf8")));
  child.stderr.on("data", (c: Buffer) => (log += c.toString("utf8")));
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.on("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const stop = async (): Promise<void> => {
    if (groupAlive(child.pid!)) process.kill(-child.pid!, "SIGTERM");
    const kill = setTimeout(() => groupAlive(child.pid!) && process.kill(-child.pid!, "SIGKILL"), 10_000);
    await gone;
    clearTimeout(kill);
    // The group may outlive its leader (Prism's own children): end what is left.
    if (groupAlive(child.pid!)) process.kill(-child.pid!, "SIGKILL");
  };
  for (;;) {
    let url = "";
    try {
      url = readFileSync(readyFile, "utf8").trim();
    } catch {
      // not written yet
    }
    if (url !== "") return { url, log: () => log, stop };
    if (exited) {
      await stop();
      throw new Error(`node dist/src/cli/bin.js ${args.join(" ")} exited before it listened:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
