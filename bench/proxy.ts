import { Pool } from "undici";
import { load, median, type LoadResult } from "./load.js";
import { BENCH_TOKEN, cpuMs, startBareProxy, startProxyTarget, startTarget } from "./targets.js";

/** One request at a time: what an e2e suite, mostly sequential, feels per exchange. */
export interface SequentialResult {
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface ProxyBenchResult {
  /** Saturated, medians over the rounds: the reference server directly, through a bare pass-through, through `plantstore proxy`. */
  readonly direct: LoadResult;
  readonly bare: LoadResult;
  readonly proxied: LoadResult;
  /**
   * The anchor: the bare pass-through with Ajv judging each create's two bodies
   * (bench/validating-proxy.ts), saturated alike. Absent from results before 2026-11-27.
   */
  readonly validating?: LoadResult;
  /** `plantstore proxy` over the anchor's requests per second. */
  readonly ratioToValidating?: number;
  /** CPU time of each proxy process per exchange, in µs, medians over the saturated rounds (/proc). */
  readonly cpuUsPerExchange?: { readonly bare: number; readonly validating: number; readonly proxied: number };
  /** Proxied over direct requests per second (the target: at least 0.60). */
  readonly ratio: number;
  /** Proxied over the bare pass-through: what judging costs beyond forwarding at all. */
  readonly ratioToBare: number;
  /** Bare pass-through over direct: the most any proxy process gets on this machine. */
  readonly bareRatio: number;
  /** Saturated p99, proxied minus direct, in milliseconds (the target: at most 2). */
  readonly addedP99Ms: number;
  /** Sequential requests, microsecond timing: medians over the rounds. */
  readonly sequential: {
    readonly direct: SequentialResult;
    readonly bare: SequentialResult;
    readonly proxied: SequentialResult;
  };
  /** Sequential p99, proxied minus direct, in milliseconds. */
  readonly sequentialAddedP99Ms: number;
  readonly rounds: number;
}

interface Settings {
  readonly warmupSeconds: number;
  readonly roundSeconds: number;
  readonly rounds: number;
  readonly connections: number;
  readonly sequentialRequests: number;
}

/** `n` creates one after another on one keep-alive connection, each timed on its own. */
async function sequential(url: string, n: number, firstId: number): Promise<SequentialResult> {
  const pool = new Pool(url, { connections: 1 });
  const times: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      const res = await pool.request({
        method: "POST",
        path: "/plants",
        headers: { "content-type": "application/json", authorization: `Bearer ${BENCH_TOKEN}` },
        body: `{"id":${firstId + i},"name":"Bench fern","tag":"fern"}`,
      });
      await res.body.arrayBuffer();
      times.push(performance.now() - started);
      if (res.statusCode !== 200) throw new Error(`sequential create got ${res.statusCode}`);
    }
  } finally {
    await pool.close();
  }
  times.sort((a, b) => a - b);
  return { p50Ms: times[Math.floor(n * 0.5)]!, p99Ms: times[Math.floor(n * 0.99)]! };
}

/**
 * What the validation proxy costs a suite that runs through it. The reference server (its own
 * process) is loaded with valid creates directly, through a bare node:http pass-through (the
 * ceiling for any proxy process on the machine) and through `plantstore proxy` (its own process):
 * saturated by autocannon, then one request at a time; saturated also through the anchor, the bare
 * pass-through with Ajv judging each create (bench/validating-proxy.ts), with each proxy process's
 * CPU per exchange. Rounds interleaved so all see the same machine; medians. Ids stay unique across
 * all rounds.
 */
export async function benchProxy(s: Settings, log: (line: string) => void): Promise<ProxyBenchResult> {
  const server = await startTarget("reference");
  let bare: Awaited<ReturnType<typeof startBareProxy>> | undefined;
  let proxy: Awaited<ReturnType<typeof startProxyTarget>> | undefined;
  let validating: Awaited<ReturnType<typeof startBareProxy>> | undefined;
  try {
    bare = await startBareProxy(server.url);
    proxy = await startProxyTarget(server.url);
    validating = await startBareProxy(server.url, "validating");
    const urls = { direct: server.url, bare: bare.url, proxied: proxy.url, validating: validating.url };
    const pids = { direct: server.pid, bare: bare.pid, proxied: proxy.pid, validating: validating.pid };
    const names = ["direct", "bare", "proxied"] as const;
    const saturated = [...names, "validating"] as const;
    let nextId = 1;
    const cpu = { direct: [] as number[], bare: [] as number[], proxied: [] as number[], validating: [] as number[] };
    const run = async (name: (typeof saturated)[number], seconds: number, counted = false): Promise<LoadResult> => {
      const before = cpuMs(pids[name]);
      const r = await load(urls[name], "valid", seconds, s.connections, nextId);
      if (counted) cpu[name].push(((cpuMs(pids[name]) - before) * 1000) / r.total);
      nextId += r.total + 1_000;
      return r;
    };
    const seq = async (url: string): Promise<SequentialResult> => {
      const r = await sequential(url, s.sequentialRequests, nextId);
      nextId += s.sequentialRequests + 1_000;
      return r;
    };
    for (const name of saturated) await run(name, s.warmupSeconds);
    for (const name of names) await seq(urls[name]);
    const loads = {
      direct: [] as LoadResult[],
      bare: [] as LoadResult[],
      proxied: [] as LoadResult[],
      validating: [] as LoadResult[],
    };
    const seqs = {
      direct: [] as SequentialResult[],
      bare: [] as SequentialResult[],
      proxied: [] as SequentialResult[],
    };
    for (let round = 1; round <= s.rounds; round++) {
      for (const name of saturated) loads[name].push(await run(name, s.roundSeconds, true));
      for (const name of names) seqs[name].push(await seq(urls[name]));
      const rps = (name: (typeof saturated)[number]) => Math.round(loads[name].at(-1)!.requestsPerSecond);
      const p99 = (name: (typeof names)[number]) => seqs[name].at(-1)!.p99Ms.toFixed(2);
      log(
        `proxy round ${round}/${s.rounds}: saturated req/s direct ${rps("direct")}, bare pass-through ${rps("bare")}, plantstore proxy ${rps("proxied")}, validating pass-through ${rps("validating")}; ` +
          `sequential p99 ms ${p99("direct")}, ${p99("bare")}, ${p99("proxied")}`,
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
    const medSeq = (rs: SequentialResult[]): SequentialResult => ({
      p50Ms: median(rs.map((r) => r.p50Ms)),
      p99Ms: median(rs.map((r) => r.p99Ms)),
    });
    const [d, b, p, v] = [med(loads.direct), med(loads.bare), med(loads.proxied), med(loads.validating)];
    const sequentialResult = { direct: medSeq(seqs.direct), bare: medSeq(seqs.bare), proxied: medSeq(seqs.proxied) };
    return {
      direct: d,
      bare: b,
      proxied: p,
      ratio: p.requestsPerSecond / d.requestsPerSecond,
      ratioToBare: p.requestsPerSecond / b.requestsPerSecond,
      bareRatio: b.requestsPerSecond / d.requestsPerSecond,
      validating: v,
      ratioToValidating: p.requestsPerSecond / v.requestsPerSecond,
      cpuUsPerExchange: { bare: median(cpu.bare), validating: median(cpu.validating), proxied: median(cpu.proxied) },
      addedP99Ms: p.p99Ms - d.p99Ms,
      sequential: sequentialResult,
      sequentialAddedP99Ms: sequentialResult.proxied.p99Ms - sequentialResult.direct.p99Ms,
      rounds: s.rounds,
    };
  } finally {
    await proxy?.stop();
    await bare?.stop();
    await validating?.stop();
    await server.stop();
  }
}
