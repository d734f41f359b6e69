// The benchmark's settings and the shape of its JSON result (bench/run.ts makes it, report.ts prints it).
import type { HarnessResult } from "./harness.js";
import type { LoggingCost } from "./logging-cost.js";
import type { MemoryResult } from "./memory.js";
import type { ProxyBenchResult } from "./proxy.js";
import type { StartupResult } from "./serve-startup.js";
import type { Ratio, ServerBench } from "./servers.js";

/** A server section: the rows, and each target's req/s over Prism's, round by round. */
export type ServersResult = ServerBench & { readonly versusPrism: Readonly<Record<string, Ratio>> };

export interface BenchResult {
  readonly when: string;
  readonly machine: {
    readonly cpus: string;
    readonly cores: number;
    readonly memoryGiB: number;
    readonly node: string;
    /** The load average before and after the run: what else the machine was doing. */
    readonly load: { readonly before: readonly number[]; readonly after: readonly number[] };
  };
  readonly settings: Settings;
  /** The folder of the build compared (--compare), if any. */
  readonly compared?: string;
  /** The Plant Store spec: creates, against bare node:http and Prism. */
  readonly servers?: ServersResult;
  /** What serve's default log lines cost: CPU per answer beside its --quiet twin, at the same time. */
  readonly logging?: LoggingCost;
  /** The multi-operation spec: the read-heavy mix, against a bare node:http store and Prism. */
  readonly reads?: ServersResult & { readonly spec: string; readonly seeded: number };
  readonly startup?: StartupResult;
  /** The reference server's store, then the engine's on each document. */
  readonly memory?: readonly MemoryResult[];
  readonly harness?: HarnessResult;
  readonly proxy?: ProxyBenchResult;
}

export type Settings = ReturnType<typeof settings>;

/** The quick settings of --smoke, or those of a real run. */
export function settings(smoke: boolean) {
  const common = { connections: 10 };
  if (smoke)
    return {
      ...common,
      warmupSeconds: 0.25,
      roundSeconds: 0.5,
      rounds: 1,
      logging: { rate: 200, seconds: 0.5, rounds: 1 },
      seeded: 100,
      startupRuns: 1,
      memoryCounts: [10_000, 20_000],
      suiteRuns: 1,
      generatedCases: 40,
      harnessRounds: 1,
      sequentialRequests: 200,
    };
  return {
    ...common,
    warmupSeconds: 3,
    roundSeconds: 3,
    rounds: 7,
    logging: { rate: 1_000, seconds: 5, rounds: 10 },
    seeded: 1_000,
    startupRuns: 10,
    memoryCounts: [100_000, 1_000_000],
    suiteRuns: 10,
    generatedCases: 4_000,
    harnessRounds: 6,
    sequentialRequests: 3_000,
  };
}
