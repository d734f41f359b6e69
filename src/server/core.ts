// The Plant Store reference server: the mock engine (engine.ts) with the kit's Plant Store spec and
// the reference server's options. No handler of its own: `createPlant` is the engine's create of the
// `plants` collection, which the resource model finds in the spec.

import type { Contract } from "../contract/portable.js";
import type { CorsPolicy } from "./cors.js";
import { createEngine, type Engine } from "./engine.js";
import { engineCredentials } from "./engine-security.js";

export interface CoreOptions {
  readonly tokens: readonly string[];
  readonly cors: CorsPolicy;
  /** How many plants the store holds; beyond it creates are refused (PS_STORE_FULL). */
  readonly maxPlants: number;
  /** Serve the admin surface under /__admin/ (off unless asked for). */
  readonly admin?: boolean;
  /**
   * Honour `Prefer: code=400` (Prism's convention) with the documented Error answer. Off by default:
   * the contract says a valid request gets 200, and the reference server keeps to it unless asked.
   */
  readonly errorsOnDemand?: boolean;
  /** Called after every request that changed the store. */
  readonly onChange?: () => void;
  /** Told of a failure of the engine's own, which answers 500 (engine.ts EngineOptions). */
  readonly onFailure?: (error: unknown) => void;
}

/** The reference server as an engine: request in, answer out (`engine.handle`), its store on `engine.store`. */
export function createReferenceEngine(contract: Contract, options: CoreOptions): Engine {
  return createEngine(contract, {
    credentials: engineCredentials(options.tokens, undefined, "--token"),
    cors: options.cors,
    maxItems: options.maxPlants,
    admin: options.admin === true,
    preferOnDemand: options.errorsOnDemand === true,
    ...(options.onChange === undefined ? {} : { onChange: options.onChange }),
    ...(options.onFailure === undefined ? {} : { onFailure: options.onFailure }),
  });
}
