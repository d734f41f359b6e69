// MockOptions made into the engine's options, in one place for every adapter (the HTTP server and
// the fetch handler), with the defaults, the checks and the names of one release before. Portable:
// no Node module (the fetch handler runs in browsers).
import type { Contract } from "../contract/portable.js";
import { KitError } from "../errors.js";
import { checkedCorsHeaders } from "./cors.js";
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_ITEMS } from "./defaults.js";
import type { DeprecatedMockOptions, MockOptions } from "./defaults.js";
import { createEngine, type Engine, type EngineOptions } from "./engine.js";
import { engineCredentials } from "./engine-security.js";

/** How the options are called where the user set them, for messages: flags or properties. */
export interface OptionNames {
  readonly tokens: string;
  readonly corsHeaders: string;
  readonly maxItems: string;
  readonly maxBodyBytes: string;
  readonly maxDepth: string;
  readonly delayMs: string;
}

/** The command line's names (`plantstore serve`, and `startMockServer`, which it calls). */
export const FLAG_NAMES: OptionNames = {
  tokens: "--token",
  corsHeaders: "--cors-headers",
  maxItems: "--max-items",
  maxBodyBytes: "--max-body",
  maxDepth: "--max-depth",
  delayMs: "--delay",
};

/** The library's names (`createMockHandler`). */
export const PROPERTY_NAMES: OptionNames = {
  tokens: "tokens",
  corsHeaders: "corsHeaders",
  maxItems: "maxItems",
  maxBodyBytes: "maxBodyBytes",
  maxDepth: "maxDepth",
  delayMs: "delayMs",
};

/** What an adapter lets the engine call back: a saver after every change, a reporter of failures. */
export type EngineHooks = Pick<EngineOptions, "onChange" | "onFailure">;

/** MockOptions with every default filled in and every value checked. */
export interface ResolvedMockOptions {
  readonly engine: EngineOptions;
  readonly maxBodyBytes: number;
  readonly delayMs: number;
}

/**
 * The engine's options from MockOptions (a name of one release before taken where the current one is
 * not given); a value out of range is PS_USAGE naming the option as the user called it.
 */
export function resolveMockOptions(
  options: MockOptions & DeprecatedMockOptions,
  given: OptionNames,
  hooks: EngineHooks = {},
): ResolvedMockOptions {
  // A value given by its old name is named so in messages.
  const old = (current: unknown, previous: unknown, name: string, fallback: string): string =>
    current === undefined && previous !== undefined ? name : fallback;
  const names: OptionNames = {
    ...given,
    maxItems: old(options.maxItems, options.maxPlants, "maxPlants", given.maxItems),
    maxBodyBytes: old(options.maxBodyBytes, options.maxBody, "maxBody", given.maxBodyBytes),
    delayMs: old(options.delayMs, options.delay, "delay", given.delayMs),
  };
  return {
    engine: {
      credentials: engineCredentials(options.tokens, options.basic, names.tokens),
      cors: {
        origins: options.corsOrigins ?? ["*"],
        headers: checkedCorsHeaders(options.corsHeaders, names.corsHeaders),
      },
      maxItems: wholeNumber(options.maxItems ?? options.maxPlants, DEFAULT_MAX_ITEMS, names.maxItems),
      maxItemsName: names.maxItems,
      maxDepth: wholeNumber(options.maxDepth, DEFAULT_MAX_DEPTH, names.maxDepth),
      admin: options.admin === true,
      errorsOnDemand: (options.errorsOnDemand ?? options.preferOnDemand) === true,
      ...hooks,
    },
    maxBodyBytes: wholeNumber(options.maxBodyBytes ?? options.maxBody, DEFAULT_MAX_BODY_BYTES, names.maxBodyBytes),
    delayMs: wholeNumber(options.delayMs ?? options.delay, 0, names.delayMs),
  };
}

/** The mock engine of a contract with MockOptions, named as the library names them (tests, benchmarks). */
export function createMockEngine(
  contract: Contract,
  options: MockOptions & DeprecatedMockOptions = {},
  hooks: EngineHooks = {},
): Engine {
  return createEngine(contract, resolveMockOptions(options, PROPERTY_NAMES, hooks).engine);
}

/** A whole number of at least 0: the fallback when not given, a PS_USAGE error naming the option when wrong. */
export function wholeNumber(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0)
    throw new KitError("PS_USAGE", `${name} must be a whole number of at least 0, not ${String(value)}`);
  return value;
}
