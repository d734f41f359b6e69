import { compileContract, type Contract } from "../contract/portable.js";
import { KitError } from "../errors.js";
import { PLANT_STORE_DOCUMENT } from "../generated/plant-store-document.js";
import type { NewPlant } from "../types.js";
import type { DeprecatedMockOptions, MockOptions } from "./defaults.js";
import { createEngine, type Engine } from "./engine.js";
import type { ResourceStore } from "./engine-store.js";
import { writeJson } from "../contract/portable.js";
import { errorAnswer, type WireResponse } from "./error-answers.js";
import { PROPERTY_NAMES, resolveMockOptions } from "./mock-options.js";
import type { CoreRequest } from "./request.js";

// Nothing Node-only may be imported here, directly or not: this module runs in browsers and service
// workers too (Mock Service Worker, Playwright's page.route). The browser bundle's build
// (scripts/bundle-browser.mjs, platform browser) fails if a Node built-in creeps onto the path.

/** The options of `plantstore serve --spec` that make sense without a socket: MockOptions and the contract. */
export interface MockHandlerOptions extends MockOptions, DeprecatedMockOptions {
  /** The contract to serve: compiled, or an OpenAPI document as an object (bundled: internal `$ref`s only). */
  readonly contract?: Contract;
  readonly document?: Readonly<Record<string, unknown>>;
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
  /** The engine's store: `size`, `itemsOf("/plants")`, `clear()`. */
  readonly store: ResourceStore;
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
  const resolved = resolveMockOptions(options, PROPERTY_NAMES);
  const engine = createEngine(contract, resolved.engine);
  if (options.data !== undefined) engine.seed(seedText(options.data), "data");
  const handle = fetchHandle(engine.handle, resolved.maxBodyBytes, resolved.delayMs);
  return Object.assign(handle, { engine, store: engine.store });
}

/** @deprecated Use MockHandlerOptions: the Plant Store handler is the mock handler with the kit's spec. */
export interface PlantStoreHandlerOptions extends Omit<MockHandlerOptions, "contract" | "document" | "data"> {
  /**
   * Plants to start with, checked as `--data FILE` is: NewPlant objects, or JSON text of them. Ids
   * beyond 2^53 are exact only in JSON text (a JavaScript number has already rounded them).
   */
  readonly data?: readonly NewPlant[] | string;
}

/** The Plant Store reference server as a fetch-style function: the mock handler with the kit's spec. */
export type PlantStoreHandler = MockHandler;

let kitContract: Contract | undefined;

/**
 * Creates the reference server as `(request: Request) => Promise<Response>`, for places with no port:
 * the mock handler of the kit's spec, so the same engine, store, validation, auth, CORS, admin
 * surface and error answers as `plantstore serve`.
 */
export function createPlantStoreHandler(options: PlantStoreHandlerOptions = {}): PlantStoreHandler {
  // Compiled once per realm and shared: a Contract is immutable.
  const contract = (kitContract ??= compileContract(PLANT_STORE_DOCUMENT, "spec/openapi.yaml"));
  if (options.data !== undefined && typeof options.data !== "string" && !Array.isArray(options.data))
    throw new KitError("PS_DATA_INVALID", "data: must be a JSON array, or JSON text");
  return createMockHandler({ ...options, contract });
}

/** Seed data as text: as given, or values written as JSON (their numbers as JavaScript has them). */
function seedText(data: unknown): string {
  return typeof data === "string" ? data : writeJson(data);
}

const encoder = new TextEncoder();
/** Statuses whose Response must have a null body (Fetch standard); the core answers 204 to a preflight. */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

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
