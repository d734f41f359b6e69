import { loadContract, type Contract } from "../contract/index.js";
import { DEFAULT_SPEC } from "../paths.js";
import { createReferenceEngine, type CoreOptions } from "./core.js";
import { checkedCorsHeaders } from "./cors.js";
import { DEFAULT_MAX_PLANTS, DEV_TOKEN, type ReferenceOptions } from "./defaults.js";
import type { WireResponse } from "./error-answers.js";
import { DEFAULT_HTTP_OPTIONS, startHttpServer, type HttpOptions, type RunningServer } from "./http-adapter.js";
import { createEngine, type Engine, type ServedOperation } from "./engine.js";
import { engineCredentials } from "./engine-security.js";
import { ResourceStore } from "./engine-store.js";
import type { CoreRequest } from "./request.js";
import { dataText, fileSaver, savedText } from "./save-file.js";

export { createReferenceEngine, startHttpServer, DEFAULT_HTTP_OPTIONS, DEFAULT_MAX_PLANTS, DEV_TOKEN, ResourceStore };
export type { CoreOptions, CoreRequest, WireResponse, HttpOptions, RunningServer, ReferenceOptions };
export { ERROR_ANSWERS, errorAnswer } from "./error-answers.js";
export type { ErrorAnswerCode } from "./error-answers.js";
export { createMockHandler, createPlantStoreHandler } from "./fetch-handler.js";
export { createEngine };
export type { Engine, ServedOperation };
export type { MockHandler, MockHandlerOptions, PlantStoreHandler, PlantStoreHandlerOptions } from "./fetch-handler.js";

export interface ReferenceServerConfig extends ReferenceOptions, Partial<HttpOptions> {
  readonly contract?: Contract;
  /** A JSON file of NewPlant objects to start with. */
  readonly dataFile?: string;
  /** Written atomically after every change; a restart with the same file starts from it (over dataFile). */
  readonly saveFile?: string;
}

export interface ReferenceServer extends RunningServer {
  /** The store: `size`, `itemsOf("/plants")`, `clear()`. */
  readonly store: ResourceStore;
  readonly engine: Engine;
  readonly contract: Contract;
}

/**
 * Serves the Plant Store reference implementation over HTTP: the mock engine with the kit's spec
 * (core.ts), loaded once.
 */
export async function startReferenceServer(config: ReferenceServerConfig = {}): Promise<ReferenceServer> {
  const contract = config.contract ?? (await loadContract(DEFAULT_SPEC));
  let save: (() => void) | undefined;
  const engine = createReferenceEngine(contract, {
    tokens: config.tokens ?? [],
    cors: {
      origins: config.corsOrigins ?? ["*"],
      headers: checkedCorsHeaders(config.corsHeaders, "--cors-headers"),
    },
    maxPlants: config.maxPlants ?? DEFAULT_MAX_PLANTS,
    admin: config.admin === true,
    errorsOnDemand: config.errorsOnDemand === true,
    onChange: () => save?.(),
    onFailure: warn,
  });
  save = startStore(engine, config.dataFile, config.saveFile);
  const {
    tokens: _t,
    corsOrigins: _c,
    corsHeaders: _h,
    maxPlants: _m,
    contract: _k,
    admin: _a,
    dataFile: _d,
    saveFile: _s,
    errorsOnDemand: _e,
    ...httpConfig
  } = config;
  const running = await startHttpServer(engine.handle, { ...DEFAULT_HTTP_OPTIONS, ...stripUndefined(httpConfig) });
  return { ...running, store: engine.store, engine, contract };
}

/**
 * Fills a new engine's store: from the `--save` file of an earlier run, else from the `--data` file;
 * then, with `--save`, writes it once. The saver to call after every change, if saving.
 */
function startStore(
  engine: Engine,
  dataFile: string | undefined,
  saveFile: string | undefined,
): (() => void) | undefined {
  const saved = saveFile === undefined ? undefined : savedText(saveFile);
  if (saved !== undefined) engine.restore(saved, saveFile!);
  else if (dataFile !== undefined) engine.seed(dataText(dataFile), dataFile);
  if (saveFile === undefined) return undefined;
  const save = fileSaver(saveFile, () => engine.snapshot());
  save();
  return save;
}

/** A server's failures of its own (each answered 500) go where Node's operators look: a process warning. */
function warn(error: unknown): void {
  process.emitWarning(`plantstore: unexpected failure: ${error instanceof Error ? error.stack : String(error)}`);
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export interface MockServerConfig extends Partial<HttpOptions> {
  readonly contract: Contract;
  /** Bearer tokens and API keys to accept; without any, the development token. */
  readonly tokens?: readonly string[];
  /** Basic `user:password` pairs to accept; without any, `plantstore:` and the development token. */
  readonly basic?: readonly string[];
  readonly corsOrigins?: readonly string[];
  readonly corsHeaders?: readonly string[];
  /** How many items the store holds in all (default 1,000,000). */
  readonly maxItems?: number;
  /** Seed data: collection paths to arrays of create bodies (engine.ts `seed`). */
  readonly dataFile?: string;
  /** Written atomically after every change; a restart with the same file starts from it (over dataFile). */
  readonly saveFile?: string;
  /** Serve GET and DELETE /__admin/store (list, empty); needs a token too. */
  readonly admin?: boolean;
  /** Honour `Prefer: code=NNN` and `Prefer: example=NAME` (Prism's conventions). */
  readonly preferOnDemand?: boolean;
}

export interface MockServer extends RunningServer {
  readonly engine: Engine;
  readonly contract: Contract;
}

/** Serves any contract with the mock engine (engine.ts) over HTTP: stateful, in memory. */
export async function startMockServer(config: MockServerConfig): Promise<MockServer> {
  let save: (() => void) | undefined;
  const engine = createEngine(config.contract, {
    credentials: engineCredentials(config.tokens, config.basic, "--token"),
    cors: { origins: config.corsOrigins ?? ["*"], headers: checkedCorsHeaders(config.corsHeaders, "--cors-headers") },
    maxItems: config.maxItems ?? DEFAULT_MAX_PLANTS,
    onChange: () => save?.(),
    admin: config.admin === true,
    preferOnDemand: config.preferOnDemand === true,
    onFailure: warn,
  });
  save = startStore(engine, config.dataFile, config.saveFile);
  const {
    contract: _k,
    tokens: _t,
    basic: _b,
    corsOrigins: _c,
    corsHeaders: _h,
    maxItems: _m,
    dataFile: _d,
    saveFile: _s,
    admin: _a,
    preferOnDemand: _p,
    ...httpConfig
  } = config;
  const running = await startHttpServer(engine.handle, { ...DEFAULT_HTTP_OPTIONS, ...stripUndefined(httpConfig) });
  return { ...running, engine, contract: config.contract };
}
