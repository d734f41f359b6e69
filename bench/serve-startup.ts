// Start-up of `plantstore serve` (the `startup` section of npm run bench): from spawn to the URL in
// its --ready-file, for the Plant Store and for documents of about 200 operations, against Node's own
// floor (a `node -e` that writes the file at once). Each case is a fresh process, the cases run round
// robin after one untimed round; median and spread of the wall time, and the CPU time the process had
// used when ready (user + system from /proc, 10 ms ticks), the steadier figure on a shared machine.
// `node dist/bench/serve-startup.js phases FILE`: where the time goes inside one start, as JSON.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, watch, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_SPEC, KIT_ROOT } from "../src/paths.js";
import { median } from "./stats.js";
import { largeSpecYaml } from "./spec-load-document.js";
import { cpuMs } from "./targets.js";

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export interface StartupCase {
  readonly name: string;
  /** Operations of its document (the kit's count), undefined for the floor. */
  readonly operations: number | undefined;
  readonly wallMs: Spread;
  readonly cpuMs: Spread;
}

export interface StartupResult {
  readonly runs: number;
  readonly cases: readonly StartupCase[];
  /** Inside one start of the generated 200-operation document: imports, loadContract, the engine listening. */
  readonly phases: { readonly importMs: number; readonly loadContractMs: number; readonly listenMs: number };
}

const BIN = join(KIT_ROOT, "dist", "src", "cli", "bin.js");
const TWILIO = join(KIT_ROOT, "test", "data", "corpus", "twilio-api-v2010.json");
const spread = (xs: number[]): Spread => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });

/** Spawns `node args` (READY in them replaced by a fresh file), times it to the file, then stops it. */
async function once(args: readonly string[]): Promise<{ wall: number; cpu: number }> {
  const dir = mkdtempSync(join(tmpdir(), "plantstore-bench-startup-"));
  const ready = join(dir, "ready");
  try {
    const seen = new Promise<void>((resolve) => {
      const watcher = watch(dir, () => {
        if (!existsSync(ready)) return;
        watcher.close();
        resolve();
      });
    });
    const started = performance.now();
    const child = spawn(
      process.execPath,
      args.map((a) => (a === "READY" ? ready : a)),
      { stdio: "ignore" },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const failed = exited.then((code) => Promise.reject(new Error(`${args.join(" ")} exited ${code} before ready`)));
    await Promise.race([seen, failed]);
    const wall = performance.now() - started;
    let cpu = NaN;
    try {
      cpu = cpuMs(child.pid as number);
    } catch {
      // The floor may have exited already: its CPU time is not read.
    }
    failed.catch(() => undefined);
    child.kill("SIGTERM");
    await exited;
    return { wall, cpu };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Times each case `runs` times, round robin, after one untimed round (none with `warmUp` false: --smoke). */
export async function benchServeStartup(
  runs: number,
  log: (line: string) => void,
  warmUp = true,
): Promise<StartupResult> {
  const { loadContract } = await import("../src/contract/index.js");
  const dir = mkdtempSync(join(tmpdir(), "plantstore-bench-spec-"));
  try {
    const generated = join(dir, "generated-200.yaml");
    writeFileSync(generated, largeSpecYaml(40));
    const serve = (spec?: string): string[] => [
      BIN,
      "serve",
      ...(spec === undefined ? [] : ["--spec", spec]),
      "--port",
      "0",
      "--ready-file",
      "READY",
    ];
    const count = async (spec: string): Promise<number> => (await loadContract(spec)).operations.length;
    const cases: { name: string; operations: number | undefined; args: string[] }[] = [
      { name: "node -e, writes the file (the floor)", operations: undefined, args: ["-e", FLOOR, "READY"] },
      { name: "serve (the Plant Store reference server)", operations: 1, args: serve() },
      { name: "serve --spec spec/openapi.yaml", operations: await count(DEFAULT_SPEC), args: serve(DEFAULT_SPEC) },
      {
        name: "serve --spec generated 200-operation document",
        operations: await count(generated),
        args: serve(generated),
      },
      { name: "serve --spec twilio-api-v2010.json (corpus)", operations: await count(TWILIO), args: serve(TWILIO) },
    ];
    if (warmUp) for (const c of cases) await once(c.args);
    const times = cases.map(() => [] as { wall: number; cpu: number }[]);
    for (let r = 0; r < runs; r++)
      for (const [i, c] of cases.entries()) {
        times[i]!.push(await once(c.args));
        log(`start-up run ${r + 1}/${runs} ${c.name}: ${times[i]!.at(-1)!.wall.toFixed(0)} ms`);
      }
    return {
      runs,
      cases: cases.map((c, i) => ({
        name: c.name,
        operations: c.operations,
        wallMs: spread(times[i]!.map((t) => t.wall)),
        cpuMs: spread(times[i]!.map((t) => t.cpu).filter((t) => Number.isFinite(t))),
      })),
      phases: await phasesOf(generated),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const FLOOR = "require('node:fs').writeFileSync(process.argv[1], 'x'); setInterval(() => {}, 1000)";

/** The phases of one start, in a fresh process (this file run with `phases FILE`). */
async function phasesOf(spec: string): Promise<StartupResult["phases"]> {
  // The built file, also when the bench runs from its sources (its smoke test).
  const script = join(KIT_ROOT, "dist", "bench", "serve-startup.js");
  const child = spawn(process.execPath, [script, "phases", spec], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`phases of ${spec} exited ${code}`);
  return JSON.parse(out) as StartupResult["phases"];
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === "phases") {
  const t0 = performance.now();
  const { loadContract } = await import("../src/contract/index.js");
  const { startMockServer } = await import("../src/server/index.js");
  const t1 = performance.now();
  const contract = await loadContract(process.argv[3] as string);
  const t2 = performance.now();
  const server = await startMockServer({ contract, host: "127.0.0.1", port: 0 });
  const t3 = performance.now();
  await server.close();
  process.stdout.write(JSON.stringify({ importMs: t1 - t0, loadContractMs: t2 - t1, listenMs: t3 - t2 }) + "\n");
}
