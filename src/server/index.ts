import { loadContract, type Contract } from "../contract/index.js";
import { DEFAULT_SPEC } from "../paths.js";
import { seedStore } from "./admin.js";
import { acceptedTokens } from "./auth.js";
import { createCore, type CoreOptions, type CoreRequest } from "./core.js";
import { checkedCorsHeaders } from "./cors.js";
import { DEFAULT_MAX_PLANTS, DEV_TOKEN, type ReferenceOptions } from "./defaults.js";
import type { WireResponse } from "./error-answers.js";
import { DEFAULT_HTTP_OPTIONS, startHttpServer, type HttpOptions, type RunningServer } from "./http-adapter.js";
import { createEngine, type Engine, type ServedOperation } from "./engine.js";
import { engineCredentials } from "./engine-security.js";
import { dataText, fileSaver, savedText } from "./save-file.js";
import { loadSeedData } from "./seed-file.js";
import { PlantStore } from "./store.js";

export { createCore, PlantStore, startHttpServer, DEFAULT_HTTP_OPTIONS, DEFAULT_MAX_PLANTS, DEV_TOKEN };
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
}

export interface ReferenceServer extends RunningServer {
  readonly store: PlantStore;
  readonly contract: Contract;
}

/** Loads the kit's contract once and serves the reference implementation over HTTP. */
export async function startReferenceServer(config: ReferenceServerConfig = {}): Promise<ReferenceServer> {
  const contract = config.contract ?? (await loadContract(DEFAULT_SPEC));
  const store = new PlantStore(config.maxPlants ?? DEFAULT_MAX_PLANTS);
  if (config.dataFile !== undefined)
    seedStore(store, loadSeedData(config.dataFile, contract), config.dataFile, "--max-plants");
  const tokens = acceptedTokens(config.tokens, "--token");
  const cors = {
    origins: config.corsOrigins ?? ["*"],
    headers: checkedCorsHeaders(config.corsHeaders, "--cors-headers"),
  };
  const handle = createCore(contract, store, {
    tokens,
    cors,
    admin: config.admin === true,
    errorsOnDemand: config.errorsOnDemand === true,
  });
  const {
    tokens: _t,
    corsOrigins: _c,
    corsHeaders: _h,
    maxPlants: _m,
    contract: _k,
    admin: _a,
    dataFile: _d,
    errorsOnDemand: _e,
    ...httpConfig
  } = config;
  const http: HttpOptions = { ...DEFAULT_HTTP_OPTIONS, ...stripUndefined(httpConfig) };
  const running = await startHttpServer(handle, http);
  return { ...running, store, contract };
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
  });
  const saved = config.saveFile === undefined ? undefined : savedText(config.saveFile);
  if (saved !== undefined) engine.restore(saved, config.saveFile!);
  else if (config.dataFile !== undefined) engine.seed(dataText(config.dataFile), config.dataFile);
  if (config.saveFile !== undefined) {
    save = fileSaver(config.saveFile, () => engine.snapshot());
    save();
  }
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
