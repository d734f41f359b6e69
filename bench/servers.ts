import { load, median, type LoadResult, type Mix } from "./load.js";
import { rssBytes, startTarget, type Target, type TargetName } from "./targets.js";

export interface ServerBenchOptions {
  readonly targets: readonly TargetName[];
  readonly mixes: readonly Mix[];
  readonly warmupSeconds: number;
  readonly roundSeconds: number;
  readonly rounds: number;
  readonly connections: number;
}

export interface ServerRow {
  readonly target: TargetName;
  readonly mix: Mix;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  readonly non2xx: number;
  readonly total: number;
  readonly rssAfterLoadBytes: number;
  readonly startupMs: number;
  readonly rounds: readonly LoadResult[];
}

/**
 * Every target runs side by side in one process tree, rounds interleaved (reference, bare, Prism,
 * reference, ...), so machine noise hits all alike; medians over rounds after a warm-up.
 */
export async function benchServers(o: ServerBenchOptions, log: (line: string) => void): Promise<ServerRow[]> {
  const targets: Target[] = [];
  try {
    for (const name of o.targets) {
      targets.push(await startTarget(name));
      log(`started ${name} in ${targets.at(-1)!.startupMs.toFixed(0)} ms`);
    }
    const rows: ServerRow[] = [];
    let nextId = 1_000_000_000_000;
    for (const mix of o.mixes) {
      const rounds = new Map<TargetName, LoadResult[]>(targets.map((t) => [t.name, []]));
      for (const t of targets) {
        await load(t.url, mix, o.warmupSeconds, o.connections, nextId);
        nextId += 10_000_000;
      }
      for (let r = 0; r < o.rounds; r++) {
        for (const t of targets) {
          const result = await load(t.url, mix, o.roundSeconds, o.connections, nextId);
          nextId += 10_000_000;
          rounds.get(t.name)!.push(result);
          log(
            `${mix} round ${r + 1}/${o.rounds} ${t.name}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms} ms`,
          );
        }
      }
      for (const t of targets) {
        const rs = rounds.get(t.name)!;
        rows.push({
          target: t.name,
          mix,
          requestsPerSecond: median(rs.map((x) => x.requestsPerSecond)),
          p50Ms: median(rs.map((x) => x.p50Ms)),
          p99Ms: median(rs.map((x) => x.p99Ms)),
          errors: rs.reduce((a, x) => a + x.errors, 0),
          non2xx: rs.reduce((a, x) => a + x.non2xx, 0),
          total: rs.reduce((a, x) => a + x.total, 0),
          rssAfterLoadBytes: rssBytes(t.pid),
          startupMs: t.startupMs,
          rounds: rs,
        });
      }
    }
    return rows;
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
  }
}
