import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Agent, request } from "undici";
import { runConformance } from "../src/harness/index.js";
import { KIT_ROOT } from "../src/paths.js";
import { median } from "./load.js";
import { BENCH_TOKEN, startTarget } from "./targets.js";

export interface HarnessResult {
  readonly suiteWallMs: { readonly median: number; readonly min: number; readonly max: number; readonly runs: number };
  readonly startup: { readonly importMs: number; readonly loadContractMs: number; readonly loadFixturesMs: number };
  readonly generatedCases: number;
  /**
   * Exchanges per second of the harness and of raw undici loops sending the same requests: with
   * request() (the yardstick, `ratio`), and with dispatch, the API the harness is built on
   * (`overDispatch`: the harness over the fastest undici client loop).
   */
  readonly throughput: readonly {
    readonly concurrency: number;
    readonly harness: number;
    readonly rawUndici: number;
    readonly ratio: number;
    /** Absent from results before this loop was measured (2026-11-27). */
    readonly rawDispatch?: number;
    readonly overDispatch?: number;
  }[];
}

/** The raw loop, for comparison: the same requests through undici with nothing else around them. */
const BIN = join(KIT_ROOT, "dist", "src", "cli", "bin.js");

function wallOfOneRun(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, "conformance", "--target", url], {
      stdio: "ignore",
      env: { ...process.env, PLANTSTORE_TOKEN: BENCH_TOKEN },
    });
    child.once("exit", (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`conformance exited ${code}`)),
    );
  });
}

/** A fixture folder of `n` valid creates, each with its own fresh id. */
function generatedFixtures(n: number): string {
  const dir = mkdtempSync(join(tmpdir(), "plantstore-bench-fixtures-"));
  for (let i = 0; i < n; i++) {
    const id = `generated-${String(i).padStart(5, "0")}`;
    writeFileSync(
      join(dir, `${id}.json`),
      JSON.stringify({
        id,
        description: "a valid create",
        operation: "createPlant",
        steps: [
          {
            request: { body: { id: { $fresh: "id" }, name: `Generated ${i}`, tag: "fern" } },
            expect: { kind: "valid" },
          },
        ],
      }),
    );
  }
  return dir;
}

/** The bench's create of case `i`, as its generated fixture sends it. */
function createBody(firstId: number, i: number): string {
  return `{"id":${firstId + i},"name":"Generated ${i}","tag":"fern"}`;
}

const CREATE_HEADERS = { "content-type": "application/json", authorization: `Bearer ${BENCH_TOKEN}` };

async function rawUndici(url: string, n: number, concurrency: number, firstId: number): Promise<number> {
  const agent = new Agent({ pipelining: 1 });
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      const res = await request(`${url}/plants`, {
        method: "POST",
        dispatcher: agent,
        headers: CREATE_HEADERS,
        body: createBody(firstId, i),
      });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`raw loop got ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return n / seconds;
}

/** One create through undici's dispatch API: the status, the body's bytes kept as they come. */
function dispatchCreate(agent: Agent, origin: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let status = 0;
    agent.dispatch(
      { origin, path: "/plants", method: "POST", headers: CREATE_HEADERS, body },
      {
        onRequestStart: () => undefined,
        onResponseStart: (_c, statusCode) => void (status = statusCode),
        onResponseData: () => undefined,
        onResponseEnd: () => resolve(status),
        onResponseError: (_c, error) => reject(error),
      },
    );
  });
}

/** The same loop as rawUndici through dispatch, the lowest undici API, as the harness sends. */
async function rawDispatch(url: string, n: number, concurrency: number, firstId: number): Promise<number> {
  const agent = new Agent({ pipelining: 1 });
  const origin = new URL(url).origin;
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      const status = await dispatchCreate(agent, origin, createBody(firstId, i));
      if (status !== 200) throw new Error(`raw dispatch loop got ${status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return n / seconds;
}

/** The harness's own speed: a whole default run, its start-up, and its exchange rate against raw undici. */
export async function benchHarness(
  o: { suiteRuns: number; generatedCases: number; rounds: number },
  log: (line: string) => void,
): Promise<HarnessResult> {
  const target = await startTarget("reference");
  try {
    const walls: number[] = [];
    for (let i = 0; i < o.suiteRuns; i++) walls.push(await wallOfOneRun(target.url));
    log(`default suite, process start to exit: median ${median(walls).toFixed(0)} ms over ${walls.length} runs`);
    const { stdout } = await promisify(execFile)(process.execPath, [
      join(KIT_ROOT, "dist", "bench", "startup-cost.js"),
    ]);
    const startup = JSON.parse(stdout) as HarnessResult["startup"];
    const fixtures = generatedFixtures(o.generatedCases);
    try {
      const throughput = [];
      let firstId = 5_000_000_000_000;
      const harnessRun = async (concurrency: number): Promise<number> => {
        let t0 = 0;
        let t1 = 0;
        await runConformance({ target: target.url, token: BENCH_TOKEN, fixtures, concurrency }, (e) => {
          if (e.type === "run-started") t0 = performance.now();
          if (e.type === "run-finished") {
            t1 = performance.now();
            if (e.summary.exitCode !== 0) throw new Error("generated cases failed against the reference server");
          }
        });
        return o.generatedCases / ((t1 - t0) / 1000);
      };
      // Every side warmed up (JIT) before anything is counted, twice each (a run of 1,000 cases
      // left the harness's first rounds still compiling), then measured in rotating order.
      for (let w = 0; w < 2; w++) {
        await harnessRun(8);
        await rawUndici(target.url, o.generatedCases, 8, firstId);
        await rawDispatch(target.url, o.generatedCases, 8, firstId + 500_000);
        firstId += 1_000_000;
      }
      for (const concurrency of [1, 8]) {
        const harness: number[] = [];
        const raw: number[] = [];
        const dispatched: number[] = [];
        for (let r = 0; r < o.rounds; r++) {
          // Each round in another order, so no side always runs right after another.
          const runs = [
            async () => harness.push(await harnessRun(concurrency)),
            async () => raw.push(await rawUndici(target.url, o.generatedCases, concurrency, firstId)),
            async () =>
              dispatched.push(await rawDispatch(target.url, o.generatedCases, concurrency, firstId + 500_000)),
          ];
          for (let k = 0; k < runs.length; k++) await runs[(k + r) % runs.length]!();
          firstId += 1_000_000;
        }
        const row = {
          concurrency,
          harness: median(harness),
          rawUndici: median(raw),
          ratio: median(harness) / median(raw),
          rawDispatch: median(dispatched),
          overDispatch: median(harness) / median(dispatched),
        };
        log(
          `concurrency ${concurrency}: harness ${row.harness.toFixed(0)}/s, raw undici ${row.rawUndici.toFixed(0)}/s, ratio ${row.ratio.toFixed(2)}; ` +
            `raw dispatch ${row.rawDispatch.toFixed(0)}/s, harness over it ${row.overDispatch.toFixed(2)}`,
        );
        throughput.push(row);
      }
      return {
        suiteWallMs: { median: median(walls), min: Math.min(...walls), max: Math.max(...walls), runs: walls.length },
        startup,
        generatedCases: o.generatedCases,
        throughput,
      };
    } finally {
      // A thousand files per full bench run: removed whatever happens, or every run would leave them behind.
      rmSync(fixtures, { recursive: true, force: true });
    }
  } finally {
    await target.stop();
  }
}
