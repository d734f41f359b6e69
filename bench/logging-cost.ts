import { load, median } from "./load.js";
import { ratio, type Ratio } from "./servers.js";
import { cpuMs, startTarget, type Target, type TargetSpec } from "./targets.js";

// What serve's default per-request log lines cost (the `logging` section of npm run bench), measured
// at the same time rather than in turn: every target gets the same fixed rate of valid creates, all
// at once, so that whatever else the machine does in that window hits all of them alike. Each
// target's CPU time per answer over that of its --quiet twin in the same window; median and spread
// over the rounds. Interleaved req/s (servers.ts) cannot see a difference of a few per cent on a
// shared machine whose load moves the ratios by tens of per cent from one run to the next.

export interface LoggingCostRow {
  readonly target: string;
  /** The --quiet twin it is compared with (itself for a twin). */
  readonly quiet: string;
  readonly cpuUsPerRequest: number;
  /** Its CPU time per answer over its twin's, window by window. */
  readonly overQuiet: Ratio;
}

export interface LoggingCost {
  readonly rate: number;
  readonly seconds: number;
  readonly rows: readonly LoggingCostRow[];
}

/** A target and the label of its --quiet twin. */
export type Twin = TargetSpec & { readonly quiet: string };

export async function benchLoggingCost(
  o: { readonly targets: readonly Twin[]; readonly rate: number; readonly seconds: number; readonly rounds: number },
  log: (line: string) => void,
): Promise<LoggingCost> {
  const started: Target[] = [];
  try {
    for (const t of o.targets) started.push(await startTarget(t));
    let nextId = 1_000_000_000_000;
    /** All at once, each under the rate: CPU µs per answer of each. */
    const window = (): Promise<number[]> =>
      Promise.all(
        started.map(async (t) => {
          const firstId = (nextId += 10_000_000);
          const cpu = cpuMs(t.pid);
          const result = await load(t.url, "valid", o.seconds, 10, firstId, { rate: o.rate });
          return ((cpuMs(t.pid) - cpu) * 1000) / result.total;
        }),
      );
    await window(); // warm-up
    const perRound: number[][] = [];
    for (let r = 0; r < o.rounds; r++) {
      perRound.push(await window());
      log(
        `logging round ${r + 1}/${o.rounds}: ${perRound
          .at(-1)!
          .map((x) => x.toFixed(0))
          .join(", ")} us CPU an answer`,
      );
    }
    return {
      rate: o.rate,
      seconds: o.seconds,
      rows: o.targets.map((t, i) => {
        const twin = o.targets.findIndex((x) => x.label === t.quiet);
        return {
          target: t.label,
          quiet: t.quiet,
          cpuUsPerRequest: median(perRound.map((r) => r[i]!)),
          overQuiet: ratio(perRound.map((r) => r[i]! / r[twin]!)),
        };
      }),
    };
  } finally {
    await Promise.all(started.map((t) => t.stop()));
  }
}
