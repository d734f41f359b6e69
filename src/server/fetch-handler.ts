import { compileContract, type Contract } from "../contract/portable.js";
import { KitError } from "../errors.js";
import { PLANT_STORE_DOCUMENT } from "../generated/plant-store-document.js";
import type { NewPlant } from "../types.js";
import { acceptedTokens } from "./auth.js";
import { createReferenceEngine } from "./core.js";
import { checkedCorsHeaders } from "./cors.js";
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_PLANTS, type ReferenceOptions } from "./defaults.js";
import { createEngine, type Engine } from "./engine.js";
import { engineCredentials } from "./engine-security.js";
import type { ResourceStore } from "./engine-store.js";
import { writeJson } from "./engine-values.js";
import { errorAnswer, type WireResponse } from "./error-answers.js";
import type { CoreRequest } from "./request.js";

// Nothing Node-only may be imported here, directly or not: this module runs in browsers and service
// workers too (Mock Service Worker, Playwright's page.route). The browser bundle's build
// (scripts/bundle-browser.mjs, platform browser) fails if a Node built-in creeps onto the path.

/** The options of `plantstore serve` that make sense without a socket. */
export interface PlantStoreHandlerOptions extends ReferenceOptions {
  /** Largest request body in bytes; larger ones get 413 (default 1 MiB). */
  readonly maxBody?: number;
  /** Milliseconds to wait before every answer, so frontends can build loading states. */
  readonly delay?: number;
  /**
   * Plants to start with, checked as `--data FILE` is: NewPlant objects, or JSON text of them. Ids
   * beyond 2^53 are exact only in JSON text (a JavaScript number has already rounded them).
   */
  readonly data?: readonly NewPlant[] | string;
}

/** The reference server as a fetch-style function, with its store to inspect or clear between tests. */
export interface PlantStoreHandler {
  (request: Request): Promise<Response>;
  /** The store: `size`, `itemsOf("/plants")`, `clear()`. */
  readonly store: ResourceStore;
  readonly engine: Engine;
}

let kitContract: Contract | undefined;
const encoder = new TextEncoder();
/** Statuses whose Response must have a null body (Fetch standard); the core answers 204 to a preflight. */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/**
 * Creates the reference server as `(request: Request) => Promise<Response>`, for places with no port:
 * the same engine, store, validation, auth, CORS, admin surface and error answers as `plantstore serve`.
 */
export function createPlantStoreHandler(options: PlantStoreHandlerOptions = {}): PlantStoreHandler {
  // Compiled once per realm and shared: a Contract is immutable.
  const contract = (kitContract ??= compileContract(PLANT_STORE_DOCUMENT, "spec/openapi.yaml"));
  const maxBody = wholeNumber(options.maxBody, DEFAULT_MAX_BODY_BYTES, "maxBody");
  const delay = wholeNumber(options.delay, 0, "delay");
  const engine = createReferenceEngine(contract, {
    tokens: acceptedTokens(options.tokens, "tokens"),
    cors: { origins: options.corsOrigins ?? ["*"], headers: checkedCorsHeaders(options.corsHeaders, "corsHeaders") },
    maxPlants: wholeNumber(options.maxPlants, DEFAULT_MAX_PLANTS, "maxPlants"),
    admin: options.admin === true,
    errorsOnDemand: options.errorsOnDemand === true,
  });
  if (options.data !== undefined) engine.seed(seedText(options.data), "data", "maxPlants");
  const handle = fetchHandle(engine.handle, maxBody, delay);
  return Object.assign(handle, { store: engine.store, engine });
}

/** Seed data as text: as given, or an array of values written as JSON (their numbers as JavaScript has them). */
function seedText(data: unknown): string {
  if (typeof data === "string") return data;
  if (!Array.isArray(data)) throw new KitError("PS_DATA_INVALID", "data: must be a JSON array, or JSON text");
  return writeJson(data);
}

/** The options of `plantstore serve --spec` that make sense without a socket. */
export interface MockHandlerOptions {
  /** The contract to serve: compiled, or an OpenAPI document as an object (bundled: internal `$ref`s only). */
  readonly contract?: Contract;
  readonly document?: Readonly<Record<string, unknown>>;
  /** Bearer tokens and API keys to accept; without any, the development token. */
  readonly tokens?: readonly string[];
  /** Basic `user:password` pairs to accept; without any, `plantstore:` and the development token. */
  readonly basic?: readonly string[];
  readonly corsOrigins?: readonly string[];
  readonly corsHeaders?: readonly string[];
  /** How many items the store holds in all (default 1,000,000). */
  readonly maxItems?: number;
  readonly maxBody?: number;
  readonly delay?: number;
  /** Serve GET and DELETE /__admin/store (list, empty); needs a token too. */
  readonly admin?: boolean;
  /** Honour `Prefer: code=NNN` and `Prefer: example=NAME` (Prism's conventions). */
  readonly preferOnDemand?: boolean;
  /**
   * Items to start with, as `--data FILE` gives them: collection paths to arrays of create bodies
   * (or one array, where the contract has one collection at the top), as an object or as JSON text
   * (ids beyond 2^53 are exact only in text).
   */
  readonly data?: string | Readonly<Record<string, unknown>> | readonly unknown[];
}

/** The mock engine of any contract as a fetch-style function, with the engine to inspect its store and model. */
export interface MockHandler {
  (request: Request): Promise<Response>;
  readonly engine: Engine;
}

/**
 * Creates the mock engine of any contract (engine.ts, as `plantstore serve --spec` serves it) as
 * `(request: Request) => Promise<Response>`, for Mock Service Worker, Playwright's `page.route` or a
 * service worker: requests and answers judged by the contract as the server judges them.
 */
export function createMockHandler(options: MockHandlerOptions): MockHandler {
  const contract =
    options.contract ??
    (options.document !== undefined
      ? compileContract(options.document as Record<string, unknown>, "document")
      : undefined);
  if (contract === undefined) throw new KitError("PS_USAGE", "createMockHandler needs a contract or a document");
  const engine = createEngine(contract, {
    credentials: engineCredentials(options.tokens, options.basic, "tokens"),
    cors: { origins: options.corsOrigins ?? ["*"], headers: checkedCorsHeaders(options.corsHeaders, "corsHeaders") },
    maxItems: wholeNumber(options.maxItems, DEFAULT_MAX_PLANTS, "maxItems"),
    admin: options.admin === true,
    preferOnDemand: options.preferOnDemand === true,
  });
  if (options.data !== undefined)
    engine.seed(typeof options.data === "string" ? options.data : writeJson(options.data), "data", "maxItems");
  const handle = fetchHandle(
    engine.handle,
    wholeNumber(options.maxBody, DEFAULT_MAX_BODY_BYTES, "maxBody"),
    wholeNumber(options.delay, 0, "delay"),
  );
  return Object.assign(handle, { engine });
}

/** An engine's handle (request in, answer out, never a throw) as a fetch handler: the body read within its limit. */
function fetchHandle(
  core: (request: CoreRequest) => WireResponse,
  maxBody: number,
  delay: number,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const body = await readBody(request, maxBody);
    // Not `instanceof Uint8Array`: the bytes may come from another realm (a frame, a worker's stream).
    // The engine's handle answers its own failures (engine.ts `answered`): it never throws.
    const answer =
      "status" in body
        ? body
        : core({ method: request.method, url: request.url, headers: headerRecord(request.headers), body });
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    return toResponse(answer, request.method);
  };
}

/** The body as bytes, or the 413 answer the HTTP adapter gives, without reading past the limit. */
async function readBody(request: Request, max: number): Promise<Uint8Array | WireResponse> {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > max) return errorAnswer("PS_BODY_TOO_LARGE", `${declared} bytes declared, at most ${max}`);
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return errorAnswer("PS_BODY_TOO_LARGE", `more than ${max} bytes`);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** Header names come lower case from Headers, as the core expects; repeated ones joined by ", ". */
function headerRecord(headers: Headers): Record<string, string> {
  // No prototype: "__proto__" is a valid header name.
  const record: Record<string, string> = Object.create(null);
  headers.forEach((value, name) => (record[name] = value));
  return record;
}

function toResponse(answer: WireResponse, method: string): Response {
  const headers = new Headers(answer.headers);
  // A Response with a body for a null-body status throws; HEAD answers carry the length, not the bytes.
  if (NULL_BODY_STATUS.has(answer.status)) return new Response(null, { status: answer.status, headers });
  const bytes = encoder.encode(answer.body);
  headers.set("content-length", String(bytes.byteLength));
  return new Response(method === "HEAD" ? null : bytes, { status: answer.status, headers });
}

function wholeNumber(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new KitError("PS_USAGE", `${name} must be a whole number, 0 or more (got ${String(value)})`);
  }
  return value;
}
