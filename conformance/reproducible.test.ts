import { spawn, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { TOKEN } from "../test/helpers.js";
import { multiOpContract, startMultiOpServer, type MultiOpFault } from "../test/multi-op-server.js";
import { runConformance } from "../src/harness/run.js";
import { startStatefulServer, statefulContract } from "../test/stateful-server.js";

// A seed gives the same verdict on a quiet machine and a busy one: generation and shrinking are
// budgeted by counts, and --max-time is only an outer guard. The busy run shares the machine with a
// spinning process per core.
const contract = await multiOpContract();

async function run(fault: MultiOpFault | undefined, concurrency?: number) {
  const server = await startMultiOpServer(fault === undefined ? {} : { fault });
  try {
    const { summary, results } = await runConformance({
      target: server.url,
      token: TOKEN,
      contract,
      noFixtures: true,
      generate: { count: 15 },
      seed: 11n,
      ...(concurrency === undefined ? {} : { concurrency }),
    });
    return {
      exitCode: summary.exitCode,
      cases: results.map((r) => `${r.fixture} ${r.outcome}`),
      // The shrunk failing requests, exactly: the same search must end at the same smallest request.
      shrunk: results.flatMap((r) => (r.generated === undefined ? [] : [JSON.stringify(r.generated)])),
      // What the answers covered: requests sent ahead count only once judged.
      coverage: summary.coverage,
    };
  } finally {
    await server.close();
  }
}

function spinners(): ChildProcess[] {
  return Array.from({ length: availableParallelism() }, () =>
    spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
  );
}

describe("the same seed, the same verdict, quiet or with every core busy", () => {
  it.each([[undefined], ["update-ignores-body-schema" as const]])(
    "multi-operation contract, fault %s",
    async (fault) => {
      const quiet = await run(fault);
      const busy = spinners();
      let loaded;
      try {
        loaded = await run(fault);
      } finally {
        for (const p of busy) p.kill("SIGKILL");
      }
      expect(loaded).toEqual(quiet);
      expect(quiet.exitCode).toBe(fault === undefined ? 0 : 1);
    },
    120_000,
  );
});

describe("the same seed, the same verdict, its requests one at a time or eight in flight", () => {
  it.each([[undefined], ["update-ignores-body-schema" as const]])(
    "multi-operation contract, fault %s",
    async (fault) => {
      const [one, eight] = [await run(fault, 1), await run(fault, 8)];
      expect(eight).toEqual(one);
      expect(one.exitCode).toBe(fault === undefined ? 0 : 1);
    },
    120_000,
  );
});

it("sends a case's generated requests --concurrency at a time: a slow target costs its latency once per batch", async () => {
  // Answers held 200 ms: requests sent together are held together, however busy the machine.
  const server = await startStatefulServer({ delayMs: 200 });
  try {
    const { summary } = await runConformance({
      target: server.url,
      token: TOKEN,
      contract: await statefulContract(),
      noFixtures: true,
      generate: { count: 8 },
      only: ["generated-positive-createPlant"],
      seed: 3n,
      concurrency: 4,
    });
    expect(summary.exitCode).toBe(0);
    expect(server.mostInFlight()).toBe(4);
  } finally {
    await server.close();
  }
}, 60_000);
