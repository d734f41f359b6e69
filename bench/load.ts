import autocannon from "autocannon";
import { BENCH_TOKEN } from "./targets.js";

export type Mix = "valid" | "mixed";

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  readonly non2xx: number;
  readonly total: number;
}

const INVALID = [
  '{"name":"No id"}',
  '{"id":"7","name":"String id"}',
  '{"id":1,"name":"Broken"',
  '{"id":2,"name":"x","tag":5}',
];

/**
 * One load run with autocannon: `connections` keep-alive connections posting creates with unique ids
 * (so a stateful server never answers 409), all valid, or one in five invalid.
 */
export async function load(
  url: string,
  mix: Mix,
  seconds: number,
  connections: number,
  firstId: number,
): Promise<LoadResult> {
  const result = await autocannon({
    url,
    connections,
    pipelining: 1,
    duration: seconds,
    requests: [
      createRequest((n) =>
        mix === "mixed" && n % 5 === 0
          ? (INVALID[(n / 5) % INVALID.length] as string)
          : `{"id":${firstId + n},"name":"Bench fern","tag":"fern"}`,
      ),
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

/** An autocannon POST /plants with the bench token, whose n-th body (from 1) is `bodyOf(n)`. */
export function createRequest(bodyOf: (n: number) => string, onResponse?: (status: number, body: string) => void): any {
  let n = 0;
  return {
    method: "POST",
    path: "/plants",
    headers: { "content-type": "application/json", authorization: `Bearer ${BENCH_TOKEN}` },
    setupRequest: (req: any) => {
      req.body = bodyOf(++n);
      return req;
    },
    ...(onResponse === undefined ? {} : { onResponse }),
  };
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}
