import autocannon from "autocannon";
import { BENCH_TOKEN } from "./targets.js";

export { median } from "./stats.js";

/** valid: creates; mixed: creates, one in five invalid; reads: the read-heavy mix of readsRequest. */
export type Mix = "valid" | "mixed" | "reads";

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
 * (so a stateful server never answers 409), all valid, or one in five invalid; or the read-heavy mix
 * on plants 1 to `seeded` (readsRequest). As fast as the server answers, or `rate` requests a second.
 */
export async function load(
  url: string,
  mix: Mix,
  seconds: number,
  connections: number,
  firstId: number,
  more: { readonly seeded?: number; readonly rate?: number } = {},
): Promise<LoadResult> {
  const request =
    mix === "reads"
      ? readsRequest(more.seeded ?? 0, firstId)
      : createRequest((n) =>
          mix === "mixed" && n % 5 === 0
            ? (INVALID[(n / 5) % INVALID.length] as string)
            : `{"id":${firstId + n},"name":"Bench fern","tag":"fern"}`,
        );
  const rate = more.rate === undefined ? {} : { overallRate: more.rate };
  // autocannon ends a run at its next sample: 100 ms samples end it within 0.1 s of `seconds`.
  const result = await autocannon({
    url,
    connections,
    pipelining: 1,
    duration: seconds,
    sampleInt: 100,
    requests: [request],
    ...rate,
  });
  return {
    // Answers over the run's measured length: autocannon's per-second average has no sample in a
    // run shorter than a second (the --smoke runs), and is the same figure in longer ones.
    requestsPerSecond: result.duration > 0 ? result.requests.total / result.duration : 0,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

/**
 * The read-heavy mix, in cycles of ten requests: eight reads of a seeded plant (GET /plants/{id},
 * ids 1 to `seeded` spread by a stride), one list (GET /plants?limit=20), one create of a new plant
 * (POST /plants, ids from `firstId` up, never taken): 90% reads and lists, 10% creates.
 */
export function readsRequest(seeded: number, firstId: number): any {
  if (seeded < 1) throw new Error("the read mix needs seeded plants");
  const auth = { authorization: `Bearer ${BENCH_TOKEN}` };
  const create = { ...auth, "content-type": "application/json" };
  let n = 0;
  return {
    method: "GET",
    path: "/plants",
    headers: auth,
    setupRequest: (req: any) => {
      const i = n++;
      const slot = i % 10;
      if (slot === 9) {
        return {
          ...req,
          method: "POST",
          path: "/plants",
          headers: create,
          body: `{"id":${firstId + i},"name":"Bench fern","tag":"fern"}`,
        };
      }
      const path = slot === 8 ? "/plants?limit=20" : `/plants/${1 + ((i * 7919) % seeded)}`;
      return { ...req, method: "GET", path, headers: auth, body: undefined };
    },
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
