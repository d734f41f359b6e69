import { loadContract, type Contract } from "../contract/index.js";
import { KitError } from "../errors.js";
import { DEFAULT_SPEC } from "../paths.js";
import { loadSeedData } from "./admin.js";
import { createCore, type CoreOptions, type CoreRequest } from "./core.js";
import { isHeaderName } from "./cors.js";
import type { WireResponse } from "./error-answers.js";
import { DEFAULT_HTTP_OPTIONS, startHttpServer, type HttpOptions, type RunningServer } from "./http-adapter.js";
import { PlantStore } from "./store.js";

export { createCore, PlantStore, startHttpServer, DEFAULT_HTTP_OPTIONS };
export type { CoreOptions, CoreRequest, WireResponse, HttpOptions, RunningServer };
export { ERROR_ANSWERS, errorAnswer } from "./error-answers.js";
export type { ErrorAnswerCode } from "./error-answers.js";

/** The documented development token, used when no token is configured. */
export const DEV_TOKEN = "plantstore-dev-token";
export const DEFAULT_MAX_PLANTS = 1_000_000;

export interface ReferenceServerConfig extends Partial<HttpOptions> {
  readonly tokens?: readonly string[];
  readonly corsOrigins?: readonly string[];
  /** Request headers a preflight may allow beyond the contract's; undefined: any the browser asks for. */
  readonly corsHeaders?: readonly string[];
  readonly maxPlants?: number;
  readonly contract?: Contract;
  /** Serve the admin surface (list, reset) under /__admin/. */
  readonly admin?: boolean;
  /** A JSON file of NewPlant objects to start with. */
  readonly dataFile?: string;
  /** Honour `Prefer: code=400` with the documented Error answer. */
  readonly errorsOnDemand?: boolean;
}

export interface ReferenceServer extends RunningServer {
  readonly store: PlantStore;
  readonly contract: Contract;
}

/** Loads the kit's contract once and serves the reference implementation over HTTP. */
export async function startReferenceServer(config: ReferenceServerConfig = {}): Promise<ReferenceServer> {
  const contract = config.contract ?? (await loadContract(DEFAULT_SPEC));
  const store = new PlantStore(config.maxPlants ?? DEFAULT_MAX_PLANTS);
  for (const { id, plant } of config.dataFile === undefined ? [] : loadSeedData(config.dataFile, contract)) {
    if (store.insert(id, plant) === "full") throw new KitError("PS_DATA_INVALID", `${config.dataFile}: more plants than --max-plants ${store.maxPlants}`);
  }
  const tokens = config.tokens !== undefined && config.tokens.length > 0 ? config.tokens : [DEV_TOKEN];
  for (const t of tokens) {
    // A token a client could never send as sent (RFC 6750 b64token) would make every request a 401.
    if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(t)) throw new KitError("PS_USAGE", "--token must be non-empty and made of letters, digits and -._~+/ (RFC 6750 b64token), optionally ending in =");
  }
  for (const h of config.corsHeaders ?? []) {
    if (!isHeaderName(h)) throw new KitError("PS_USAGE", `--cors-headers: ${JSON.stringify(h)} is not a header name (RFC 9110 token)`);
  }
  const cors = { origins: config.corsOrigins ?? ["*"], headers: config.corsHeaders };
  const handle = createCore(contract, store, { tokens, cors, admin: config.admin === true, errorsOnDemand: config.errorsOnDemand === true });
  const { tokens: _t, corsOrigins: _c, corsHeaders: _h, maxPlants: _m, contract: _k, admin: _a, dataFile: _d, errorsOnDemand: _e, ...httpConfig } = config;
  const http: HttpOptions = { ...DEFAULT_HTTP_OPTIONS, ...stripUndefined(httpConfig) };
  const running = await startHttpServer(handle, http);
  return { ...running, store, contract };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
