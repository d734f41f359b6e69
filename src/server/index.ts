import { loadContract, type Contract } from "../contract/index.js";
import { DEFAULT_SPEC } from "../paths.js";
import {
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ITEMS,
  DEFAULT_MAX_PLANTS,
  DEV_TOKEN,
  type DeprecatedMockOptions,
  type MockOptions,
  type ReferenceOptions,
} from "./defaults.js";
import type { WireResponse } from "./error-answers.js";
import { DEFAULT_HTTP_OPTIONS, startHttpServer, type HttpOptions, type RunningServer } from "./http-adapter.js";
import { createEngine, type Engine, type EngineOptions, type ServedOperation } from "./engine.js";
import { ResourceStore } from "./engine-store.js";
import { createMockEngine, FLAG_NAMES, resolveMockOptions } from "./mock-options.js";
import type { CoreRequest } from "./request.js";
import { dataText, openJournal, replayJournal, savedText, type Journal } from "./save-file.js";

export {
  startHttpServer,
  DEFAULT_HTTP_OPTIONS,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ITEMS,
  DEFAULT_MAX_PLANTS,
  DEV_TOKEN,
  ResourceStore,
};
export type { CoreRequest, WireResponse, HttpOptions, RunningServer, MockOptions, ReferenceOptions };
export { ERROR_ANSWERS, errorAnswer } from "./error-answers.js";
export type { ErrorAnswerCode } from "./error-answers.js";
export { createMockHandler, createPlantStoreHandler } from "./fetch-handler.js";
export { createEngine, createMockEngine };
export type { Engine, EngineOptions, ServedOperation };
export type { MockHandler, MockHandlerOptions, PlantStoreHandler, PlantStoreHandlerOptions } from "./fetch-handler.js";

/** `plantstore serve --spec`'s options as a library's: MockOptions, the contract, files, and HTTP's own. */
export interface MockServerConfig extends MockOptions, DeprecatedMockOptions, Partial<HttpOptions> {
  readonly contract: Contract;
  /** Seed data (`--data`): collection paths to arrays of create bodies, or one array (engine.ts `seed`). */
  readonly dataFile?: string;
  /**
   * The store kept on disk: a snapshot FILE and a journal FILE.journal of every change since (save-file.ts);
   * a restart with the same file starts from both (over dataFile).
   */
  readonly saveFile?: string;
  /** With saveFile: each journal line flushed to the disk before the answer (fsync), not only to the kernel. */
  readonly saveFsync?: boolean;
}

export interface MockServer extends RunningServer {
  readonly engine: Engine;
  /** The engine's store: `size`, `itemsOf("/plants")`, `clear()`. */
  readonly store: ResourceStore;
  readonly contract: Contract;
}

/** Serves any contract with the mock engine (engine.ts) over HTTP: stateful, in memory. */
export async function startMockServer(config: MockServerConfig): Promise<MockServer> {
  const resolved = resolveMockOptions(config, FLAG_NAMES, { onFailure: warn });
  const engine = createEngine(config.contract, resolved.engine);
  const journal = startStore(engine, config.dataFile, config.saveFile, config.saveFsync === true);
  const http = { ...DEFAULT_HTTP_OPTIONS };
  for (const key of Object.keys(DEFAULT_HTTP_OPTIONS) as (keyof HttpOptions)[])
    if (config[key] !== undefined) Object.assign(http, { [key]: config[key] });
  let running: RunningServer;
  try {
    running = await startHttpServer(engine.handle, {
      ...http,
      maxBodyBytes: resolved.maxBodyBytes,
      delayMs: resolved.delayMs,
    });
  } catch (error) {
    await journal?.close();
    throw error;
  }
  const close: RunningServer["close"] = async (...args) => {
    try {
      await running.close(...args);
    } finally {
      // The last changes folded into the snapshot: a clean stop leaves one file to read.
      await journal?.close();
    }
  };
  return { ...running, close, engine, store: engine.store, contract: config.contract };
}

/** @deprecated Use MockServerConfig: the reference server is the mock server with the kit's spec (the default). */
export interface ReferenceServerConfig extends Omit<MockServerConfig, "contract"> {
  /** The contract to serve; the kit's Plant Store spec when not given. */
  readonly contract?: Contract;
}

/** The Plant Store reference server: the mock server of the kit's spec. */
export type ReferenceServer = MockServer;

/** Serves the Plant Store reference implementation over HTTP: the mock server of the kit's spec, loaded once. */
export async function startReferenceServer(config: ReferenceServerConfig = {}): Promise<ReferenceServer> {
  return startMockServer({ ...config, contract: config.contract ?? (await loadContract(DEFAULT_SPEC)) });
}

/** A server's failures of its own (each answered 500) go where Node's operators look: a process warning. */
function warn(error: unknown): void {
  process.emitWarning(`plantstore: unexpected failure: ${error instanceof Error ? error.stack : String(error)}`);
}

/**
 * Fills a new engine's store: from the `--save` snapshot and journal of an earlier run, else from the
 * `--data` file; then, with `--save`, opens the journal (which writes the snapshot once).
 */
function startStore(
  engine: Engine,
  dataFile: string | undefined,
  saveFile: string | undefined,
  fsync: boolean,
): Journal | undefined {
  const saved = saveFile === undefined ? undefined : savedText(saveFile);
  if (saved !== undefined) engine.restore(saved, saveFile!);
  const replayed = saveFile === undefined ? 0 : replayJournal(saveFile, engine.store);
  if (saved === undefined && replayed === 0 && dataFile !== undefined) engine.seed(dataText(dataFile), dataFile);
  return saveFile === undefined ? undefined : openJournal(saveFile, engine, { fsync });
}
