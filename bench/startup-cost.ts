// Start-up cost, two ways (docs/startup.md gives the method and the figures):
//
//   node dist/bench/startup-cost.js
//     In this process: what a conformance run pays before its first request (imports, contract,
//     fixtures), as one JSON line; bench/harness.ts reads it.
//
//   node dist/bench/startup-cost.js cli [--runs N] [--suite-runs N] [--out FILE]
//     The built CLI as a user meets it, process start to exit: `plantstore --version`, `--help`,
//     each command's `--help`, and the default suite against the reference server through the bin.
//     Each case runs N times in turn (round robin, so machine noise hits all alike); median and spread.
import { spawn } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

if (process.argv[2] === "cli") await benchCli(process.argv.slice(3));
else await importCost();

async function importCost(): Promise<void> {
  const t0 = performance.now();
  const contractModule = await import("../src/contract/index.js");
  const harness = await import("../src/harness/index.js");
  const { DEFAULT_SPEC, DEFAULT_FIXTURES } = await import("../src/paths.js");
  const t1 = performance.now();
  const contract = await contractModule.loadContract(DEFAULT_SPEC);
  const t2 = performance.now();
  harness.loadFixtures(DEFAULT_FIXTURES, contract);
  const t3 = performance.now();
  process.stdout.write(JSON.stringify({ importMs: t1 - t0, loadContractMs: t2 - t1, loadFixturesMs: t3 - t2 }) + "\n");
}

interface Spread {
  readonly runs: number;
  readonly medianMs: number;
  readonly minMs: number;
  readonly p90Ms: number;
  readonly maxMs: number;
}

function spread(times: number[]): Spread {
  const s = [...times].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  const mid = s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  const round = (n: number): number => Math.round(n * 10) / 10;
  return { runs: s.length, medianMs: round(mid), minMs: round(s[0]!), p90Ms: round(at(0.9)), maxMs: round(s.at(-1)!) };
}

/** Process start to exit of `node args...`, in ms; rejects unless it exits with `expected`. */
function wall(args: string[], env: Record<string, string> = {}, expected = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: "ignore", env: { ...process.env, ...env } });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === expected
        ? resolve(performance.now() - started)
        : reject(new Error(`${args.join(" ")} exited ${code}, expected ${expected}`)),
    );
  });
}

function flagValue(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
}

async function benchCli(argv: string[]): Promise<void> {
  const { KIT_ROOT } = await import("../src/paths.js");
  const { BENCH_TOKEN, startTarget } = await import("./targets.js");
  const bin = join(KIT_ROOT, "dist", "src", "cli", "bin.js");
  const runs = Number(flagValue(argv, "--runs") ?? 20);
  const suiteRuns = Number(flagValue(argv, "--suite-runs") ?? 10);
  const out = flagValue(argv, "--out");
  const cases: Record<string, string[]> = {
    "node -e 0 (the floor: Node itself)": ["-e", "0"],
    "plantstore --version": [bin, "--version"],
    "plantstore --help": [bin, "--help"],
    "plantstore serve --help": [bin, "serve", "--help"],
    "plantstore conformance --help": [bin, "conformance", "--help"],
    "plantstore proxy --help": [bin, "proxy", "--help"],
  };
  const load = { before: loadavg().map((l) => Math.round(l * 100) / 100), cores: cpus().length };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  // One untimed round first: the file system cache is warm for every case alike.
  for (const args of Object.values(cases)) await wall(args);
  for (let r = 0; r < runs; r++) {
    for (const [name, args] of Object.entries(cases)) times[name]!.push(await wall(args));
  }
  const suite: number[] = [];
  if (suiteRuns > 0) {
    const target = await startTarget("reference");
    try {
      const args = [bin, "conformance", "--target", target.url];
      await wall(args, { PLANTSTORE_TOKEN: BENCH_TOKEN });
      for (let r = 0; r < suiteRuns; r++) suite.push(await wall(args, { PLANTSTORE_TOKEN: BENCH_TOKEN }));
    } finally {
      await target.stop();
    }
  }
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    load: { ...load, after: loadavg().map((l) => Math.round(l * 100) / 100) },
    cases: {
      ...Object.fromEntries(Object.entries(times).map(([k, v]) => [k, spread(v)])),
      ...(suite.length === 0 ? {} : { "default suite against the reference, through the bin": spread(suite) }),
    },
  };
  for (const [name, s] of Object.entries(result.cases)) {
    process.stdout.write(
      `${name.padEnd(56)} median ${String(s.medianMs).padStart(6)} ms  min ${String(s.minMs).padStart(6)}  p90 ${String(s.p90Ms).padStart(6)}  max ${String(s.maxMs).padStart(6)}  (${s.runs} runs)\n`,
    );
  }
  process.stdout.write(
    `Node ${result.node}, ${load.cores} cores, load average ${result.load.before.join(" ")} before, ${result.load.after.join(" ")} after\n`,
  );
  if (out !== undefined) writeFileSync(out, JSON.stringify(result, null, 2) + "\n");
}
