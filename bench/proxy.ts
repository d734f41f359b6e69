import { load, type LoadResult } from "./load.js";
import { startProxyTarget, startTarget } from "./targets.js";

export interface ProxyBenchResult {
  /** Medians over the rounds: the reference server called directly, and through `plantstore proxy`. */
  readonly direct: LoadResult;
  readonly proxied: LoadResult;
  /** Proxied over direct requests per second (target at least 0.60). */
  readonly ratio: number;
  /** Proxied p99 minus direct p99, in milliseconds (target at most 2). */
  readonly addedP99Ms: number;
  readonly rounds: number;
}

interface Settings {
  readonly warmupSeconds: number;
  readonly roundSeconds: number;
  readonly rounds: number;
  readonly connections: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/**
 * What the validation proxy costs a suite that runs through it: the reference server (its own process)
 * loaded with valid creates directly and through `plantstore proxy` (its own process), rounds
 * interleaved so both see the same machine; medians. Ids stay unique across all rounds.
 */
export async function benchProxy(s: Settings, log: (line: string) => void): Promise<ProxyBenchResult> {
  const server = await startTarget("reference");
  let proxy: Awaited<ReturnType<typeof startProxyTarget>> | undefined;
  try {
    proxy = await startProxyTarget(server.url);
    let nextId = 1;
    const run = async (url: string, seconds: number): Promise<LoadResult> => {
      const r = await load(url, "valid", seconds, s.connections, nextId);
      nextId += r.total + 1_000;
      return r;
    };
    await run(server.url, s.warmupSeconds);
    await run(proxy.url, s.warmupSeconds);
    const direct: LoadResult[] = [];
    const proxied: LoadResult[] = [];
    for (let round = 1; round <= s.rounds; round++) {
      direct.push(await run(server.url, s.roundSeconds));
      proxied.push(await run(proxy.url, s.roundSeconds));
      const [d, p] = [direct.at(-1)!, proxied.at(-1)!];
      log(
        `proxy round ${round}/${s.rounds}: direct ${Math.round(d.requestsPerSecond)} req/s, through the proxy ${Math.round(p.requestsPerSecond)} req/s`,
      );
    }
    const med = (rs: LoadResult[]): LoadResult => ({
      requestsPerSecond: median(rs.map((r) => r.requestsPerSecond)),
      p50Ms: median(rs.map((r) => r.p50Ms)),
      p99Ms: median(rs.map((r) => r.p99Ms)),
      errors: rs.reduce((n, r) => n + r.errors, 0),
      non2xx: rs.reduce((n, r) => n + r.non2xx, 0),
      total: rs.reduce((n, r) => n + r.total, 0),
    });
    const [d, p] = [med(direct), med(proxied)];
    return {
      direct: d,
      proxied: p,
      ratio: p.requestsPerSecond / d.requestsPerSecond,
      addedP99Ms: p.p99Ms - d.p99Ms,
      rounds: s.rounds,
    };
  } finally {
    await proxy?.stop();
    await server.stop();
  }
}
