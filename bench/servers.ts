import { load, median, type LoadResult, type Mix } from "./load.js";
import { cpuMs, rssBytes, startTarget, type Target, type TargetSpec } from "./targets.js";

export interface ServerBenchOptions {
  /** The targets compared with the baseline. */
  readonly targets: readonly TargetSpec[];
  /** Run before, between and after the others in every round. */
  readonly baseline: TargetSpec;
  readonly mixes: readonly Mix[];
  readonly warmupSeconds: number;
  readonly roundSeconds: number;
  readonly rounds: number;
  readonly connections: number;
  /** Plants 1 to `seeded` exist before the run (the read mix reads them). */
  readonly seeded?: number;
}

/** A ratio measured once per round: its median and spread. */
export interface Ratio {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly perRound: readonly number[];
}

/** A target's row: its load figures (the median round's), and what the benchmark adds to them. */
export interface ServerRow extends LoadResult {
  /** The target's label. */
  readonly target: string;
  readonly mix: Mix;
  readonly rssAfterLoadBytes: number;
  readonly startupMs: number;
  /** Its req/s over the baseline's, in each round over the mean of the baseline's two runs beside it. */
  readonly overBaseline: Ratio;
  /** CPU time the server process used per answer, in microseconds (median over rounds). */
  readonly cpuUsPerRequest: number;
  /**
   * The baseline's CPU time per answer over its own, round by round as overBaseline: what its req/s
   * ratio would be with a core to itself, much less moved by other work on the machine.
   */
  readonly cpuOverBaseline: Ratio;
  /** In the order run; the baseline's has one more per round than there are other targets. */
  readonly rounds: readonly Run[];
}

/** One load run, and the CPU time the server used per answer in it (µs). */
export type Run = LoadResult & { readonly cpuUsPerRequest: number };

export interface ServerBench {
  readonly rows: readonly ServerRow[];
  /** Per target: the request lines in its log after it stopped, and the answers the bench received. */
  readonly logged: readonly {
    readonly target: string;
    readonly logging: boolean;
    readonly lines: number;
    readonly answered: number;
  }[];
}

export function ratio(perRound: readonly number[]): Ratio {
  return { median: median(perRound), min: Math.min(...perRound), max: Math.max(...perRound), perRound };
}

/** Round by round, `a`'s req/s over `b`'s in the same round (both rows of one mix). */
export function versus(a: ServerRow, b: ServerRow): Ratio {
  const perRoundOf = (row: ServerRow): number[] => {
    const per = row.rounds.length / row.overBaseline.perRound.length;
    // The baseline ran several times a round: its mean for the round.
    return row.overBaseline.perRound.map((_, r) => {
      const runs = row.rounds.slice(r * per, (r + 1) * per);
      return runs.reduce((sum, x) => sum + x.requestsPerSecond, 0) / runs.length;
    });
  };
  const x = perRoundOf(a);
  const y = perRoundOf(b);
  return ratio(x.map((v, i) => v / (y[i] as number)));
}

/**
 * Every target in its own process, side by side; per mix, a warm-up of each, then rounds in which
 * the baseline runs before, between and after the others (B, T1, B, T2, ..., B), their order turned
 * by one each round, so that each target's ratio to the baseline compares runs seconds apart.
 */
export async function benchServers(o: ServerBenchOptions, log: (line: string) => void): Promise<ServerBench> {
  const targets: Target[] = [];
  const answered = new Map<string, number>();
  const rows: ServerRow[] = [];
  let stopped: ServerBench["logged"] = [];
  const specs = [o.baseline, ...o.targets];
  try {
    for (const spec of specs) {
      targets.push(await startTarget(spec));
      answered.set(spec.label, 1); // the first answer it was timed to
      log(`started ${spec.label} in ${targets.at(-1)!.startupMs.toFixed(0)} ms`);
    }
    const state = { nextId: 1_000_000_000_000 };
    const run = async (t: Target, mix: Mix, seconds: number): Promise<Run> => {
      const cpu = cpuMs(t.pid);
      const result = await load(t.url, mix, seconds, o.connections, state.nextId, { seeded: o.seeded ?? 0 });
      const cpuUsPerRequest = ((cpuMs(t.pid) - cpu) * 1000) / result.total;
      state.nextId += 10_000_000;
      answered.set(t.label, answered.get(t.label)! + result.total);
      return { ...result, cpuUsPerRequest };
    };
    for (const mix of o.mixes) rows.push(...(await benchMix(targets, mix, o, run, log)));
  } finally {
    stopped = await Promise.all(
      targets.map(async (t, i) => ({
        target: t.label,
        logging: specs[i]!.logging === true,
        lines: (await t.stop()).logLines,
        answered: answered.get(t.label)!,
      })),
    );
  }
  return { rows, logged: stopped };
}

type RunOne = (t: Target, mix: Mix, seconds: number) => Promise<Run>;

async function benchMix(
  targets: readonly Target[],
  mix: Mix,
  o: ServerBenchOptions,
  run: RunOne,
  log: (line: string) => void,
): Promise<ServerRow[]> {
  const [baseline, ...others] = targets as [Target, ...Target[]];
  const results = new Map<string, Run[]>(targets.map((t) => [t.label, []]));
  const ratios = new Map<string, { rps: number[]; cpu: number[] }>(targets.map((t) => [t.label, { rps: [], cpu: [] }]));
  for (const t of targets) await run(t, mix, o.warmupSeconds);
  for (let r = 0; r < o.rounds; r++) {
    const order = [...others.slice(r % others.length), ...others.slice(0, r % others.length)];
    let before = await run(baseline, mix, o.roundSeconds);
    results.get(baseline.label)!.push(before);
    for (const t of order) {
      const result = await run(t, mix, o.roundSeconds);
      const after = await run(baseline, mix, o.roundSeconds);
      results.get(t.label)!.push(result);
      results.get(baseline.label)!.push(after);
      const rps = result.requestsPerSecond / ((before.requestsPerSecond + after.requestsPerSecond) / 2);
      const cpu = (before.cpuUsPerRequest + after.cpuUsPerRequest) / 2 / result.cpuUsPerRequest;
      ratios.get(t.label)!.rps.push(rps);
      ratios.get(t.label)!.cpu.push(cpu);
      log(
        `${mix} round ${r + 1}/${o.rounds} ${t.label}: ${result.requestsPerSecond.toFixed(0)} req/s, ${rps.toFixed(2)} of ${baseline.label}; ${result.cpuUsPerRequest.toFixed(0)} us CPU an answer, ${cpu.toFixed(2)}`,
      );
      before = after;
    }
    ratios.get(baseline.label)!.rps.push(1);
    ratios.get(baseline.label)!.cpu.push(1);
  }
  return targets.map((t) => {
    const rs = results.get(t.label)!;
    return {
      target: t.label,
      mix,
      requestsPerSecond: median(rs.map((x) => x.requestsPerSecond)),
      p50Ms: median(rs.map((x) => x.p50Ms)),
      p99Ms: median(rs.map((x) => x.p99Ms)),
      errors: rs.reduce((a, x) => a + x.errors, 0),
      non2xx: rs.reduce((a, x) => a + x.non2xx, 0),
      total: rs.reduce((a, x) => a + x.total, 0),
      rssAfterLoadBytes: rssBytes(t.pid),
      startupMs: t.startupMs,
      overBaseline: ratio(ratios.get(t.label)!.rps),
      cpuUsPerRequest: median(rs.map((x) => x.cpuUsPerRequest)),
      cpuOverBaseline: ratio(ratios.get(t.label)!.cpu),
      rounds: rs,
    };
  });
}
