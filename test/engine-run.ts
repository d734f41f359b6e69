import type { Contract } from "../src/contract/index.js";
import { runConformance } from "../src/harness/run.js";
import { DEV_TOKEN } from "../src/server/index.js";

/**
 * The kit's harness against the mock engine of a contract at `url`, as conformance/engine-corpus.test.ts
 * and bench/engine-survey.ts run it: the development credentials for every scheme (HTTP basic as
 * `plantstore:` and the token), generated cases only (--generate 10), seed 5.
 */
export function judgeEngine(contract: Contract, url: string): ReturnType<typeof runConformance> {
  const basic = contract.operations
    .flatMap((o) => o.security.flat())
    .filter((s) => s.type === "http" && s.scheme === "basic");
  return runConformance({
    target: url,
    contract,
    token: DEV_TOKEN,
    credentials: Object.fromEntries(basic.map((s) => [s.name, `plantstore:${DEV_TOKEN}`])),
    noFixtures: true,
    generate: { count: 10 },
    seed: 5n,
  });
}
