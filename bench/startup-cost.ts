// Start-up cost, two ways (docs/startup.md gives the method and the figures):
//
//   node dist/bench/startup-cost.js
//     In this process: what a conformance run pays before its first request (imports, contract,
//     fixtures), as one JSON line; bench/harness.ts reads it.
//
//   node dist/bench/startup-cost.js cli [--runs N] [--suite-runs N] [--out FILE] [--compare DIR]
//     The built CLI as a user meets it, process start to exit: `plantstore --version`, `--help`,
//     each command's `--help`, and the default suite against the reference server through the bin.
//     Each case runs N times in turn (round robin, so machine noise hits all alike); median and spread.
//     --compare DIR: the same cases with another build's bin (DIR/src/cli/bin.js, a copy of an earlier
//     dist/ inside the kit's folder), interleaved with this one's: before and after under the same load.
import { spawn } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

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

/**
 * Process start to exit of `node args...` (wall, ms), and the CPU time it used (user + system, ms, as
 * the shell's \`times\` counts its children): on a loaded machine the wall time is mostly waiting for
 * a core, the CPU time much less so. Rejects unless it exits with `expected`.
 */
function wall(args: string[], env: Record<string, string> = {}, expected = 0): Promise<{ wall: number; cpu: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const script = '"$0" "$@" >/dev/null 2>&1; code=$?; times >&2; exit $code';
    const child = spawn("sh", ["-c", script, process.execPath, ...args], { env: { ...process.env, ...env } });
    let err = "";
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.once("error", reject);
    child.once("close", (code) => {
      const took = performance.now() - started;
      // The second line of `times`: the children's user and system time, as 0m0.123s 0m0.045s.
      const seconds = [...(err.trim().split("\n")[1] ?? "").matchAll(/(\d+)m([\d.]+)s/g)].map(
        (m) => Number(m[1]) * 60 + Number(m[2]),
      );
      if (code !== expected) reject(new Error(`${args.join(" ")} exited ${code}, expected ${expected}`));
      else resolve({ wall: took, cpu: (seconds[0]! + seconds[1]!) * 1000 });
    });
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
  const compare = flagValue(argv, "--compare");
  const cliCases = (b: string, tag: string): Record<string, string[]> => ({
    [`plantstore --version${tag}`]: [b, "--version"],
    [`plantstore --help${tag}`]: [b, "--help"],
    [`plantstore serve --help${tag}`]: [b, "serve", "--help"],
    [`plantstore conformance --help${tag}`]: [b, "conformance", "--help"],
    [`plantstore proxy --help${tag}`]: [b, "proxy", "--help"],
  });
  const cases: Record<string, string[]> = {
    "node -e 0 (the floor: Node itself)": ["-e", "0"],
    ...cliCases(bin, ""),
    ...(compare === undefined ? {} : cliCases(join(resolve(compare), "src", "cli", "bin.js"), " [compared build]")),
  };
  const load = { before: loadavg().map((l) => Math.round(l * 100) / 100), cores: cpus().length };
  const times: Record<string, { wall: number; cpu: number }[]> = Object.fromEntries(
    Object.keys(cases).map((k) => [k, []]),
  );
  // One untimed round first: the file system cache is warm for every case alike.
  for (const args of Object.values(cases)) await wall(args);
  for (let r = 0; r < runs; r++) {
    for (const [name, args] of Object.entries(cases)) times[name]!.push(await wall(args));
  }
  const suite: { wall: number; cpu: number }[] = [];
  const suiteBefore: { wall: number; cpu: number }[] = [];
  if (suiteRuns > 0) {
    const target = await startTarget("reference");
    try {
      const args = [bin, "conformance", "--target", target.url];
      const before =
        compare === undefined ? undefined : [join(resolve(compare), "src", "cli", "bin.js"), ...args.slice(1)];
      await wall(args, { PLANTSTORE_TOKEN: BENCH_TOKEN });
      for (let r = 0; r < suiteRuns; r++) {
        suite.push(await wall(args, { PLANTSTORE_TOKEN: BENCH_TOKEN }));
        if (before !== undefined) suiteBefore.push(await wall(before, { PLANTSTORE_TOKEN: BENCH_TOKEN }));
      }
    } finally {
      await target.stop();
    }
  }
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    load: { ...load, after: loadavg().map((l) => Math.round(l * 100) / 100) },
    cases: Object.fromEntries(
      Object.entries({
        ...times,
        ...(suite.length === 0 ? {} : { "default suite against the reference, through the bin": suite }),
        ...(suiteBefore.length === 0
          ? {}
          : { "default suite against the reference, through the bin [compared build]": suiteBefore }),
      }).map(([k, v]) => [k, { wall: spread(v.map((t) => t.wall)), cpu: spread(v.map((t) => t.cpu)) }]),
    ),
  };
  const row = (s: Spread): string =>
    `median ${String(s.medianMs).padStart(6)}  min ${String(s.minMs).padStart(6)}  p90 ${String(s.p90Ms).padStart(6)}  max ${String(s.maxMs).padStart(6)}`;
  for (const [name, s] of Object.entries(result.cases)) {
    process.stdout.write(`${name}  (${s.wall.runs} runs, ms)\n  wall ${row(s.wall)}\n  cpu  ${row(s.cpu)}\n`);
  }
  process.stdout.write(
    `Node ${result.node}, ${load.cores} cores, load average ${result.load.before.join(" ")} before, ${result.load.after.join(" ")} after\n`,
  );
  if (out !== undefined) writeFileSync(out, JSON.stringify(result, null, 2) + "\n");
}
