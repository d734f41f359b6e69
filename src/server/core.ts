import type { AcceptedRequest, CompiledOperation, Contract, ExactNumber } from "../contract/portable.js";
import type { RequestRefusal } from "../contract/portable.js";
import { canonicalInteger, checkRequest } from "../contract/portable.js";
import type { NewPlant, Plant } from "../types.js";
import { ADMIN_PREFIX, handleAdmin } from "./admin.js";
import { createBearerCheck } from "./auth.js";
import { corsHeaders, preflightAnswer, type CorsPolicy } from "./cors.js";
import { errorAnswer, type WireResponse } from "./error-answers.js";
import { refusalError } from "./refusals.js";
import type { PlantStore } from "./store.js";

export interface CoreRequest {
  readonly method: string;
  /** The request target as received, path and optional query. */
  readonly url: string;
  /** Header names in lower case, as node:http gives them. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Uint8Array;
}

export interface CoreOptions {
  readonly tokens: readonly string[];
  readonly cors: CorsPolicy;
  /** Serve the admin surface under /__admin/ (off unless asked for). */
  readonly admin?: boolean;
  /**
   * Honour `Prefer: code=400` (Prism's convention) with the documented Error answer. Off by default:
   * the contract says a valid request gets 200, and the reference server keeps to it unless asked.
   */
  readonly errorsOnDemand?: boolean;
}

/** An operation's handler gets the request the contract accepted: its JSON value, numbers exact. */
type Handler = (accepted: AcceptedRequest) => WireResponse;

/**
 * The reference server as a function: request in, response out, in fixed stages
 * (cors preflight -> route (or the opt-in admin surface) -> authenticate -> parse -> validate -> handle). The node:http listener
 * (http-adapter.ts) only moves bytes; tests call this directly as well as over the wire.
 */
export function createCore(
  contract: Contract,
  store: PlantStore,
  options: CoreOptions,
): (request: CoreRequest) => WireResponse {
  const checkBearer = createBearerCheck(options.tokens);
  const handlers: Record<string, Handler> = {
    createPlant: ({ value, exact }) => createPlant(store, value as NewPlant, exact.get("/id")),
  };

  return (request) => {
    const origin = header(request, "origin");
    const cors = corsHeaders(options.cors, origin);
    const withCors = (r: WireResponse): WireResponse =>
      cors === undefined ? r : { ...r, headers: { ...r.headers, ...cors } };
    const path = requestPath(request.url);

    // Stage 1: CORS preflight needs no token (browsers never send one on a preflight).
    const preflight = preflightAnswer(contract, options.cors, request.method, path, request.headers);
    if (preflight !== undefined) return preflight;

    // Stage 2: route. The opt-in admin surface sits outside the contract's paths and needs the token too.
    if (options.admin === true && path.startsWith(ADMIN_PREFIX)) {
      const failure = checkBearer(header(request, "authorization"));
      if (failure !== undefined)
        return withCors(
          errorAnswer("PS_UNAUTHORIZED", "the admin surface needs the bearer token too", {
            "www-authenticate": 'Bearer realm="plantstore"',
          }),
        );
      return withCors(handleAdmin(store, request.method, path));
    }
    const route = contract.route(request.method, path);
    if (route.kind === "not-found") return withCors(errorAnswer("PS_NOT_FOUND", `${request.method} ${path}`));
    if (route.kind === "method-not-allowed") {
      return withCors(
        errorAnswer("PS_METHOD_NOT_ALLOWED", `${request.method} ${path} (allowed: ${route.allowed.join(", ")})`, {
          allow: route.allowed.join(", "),
        }),
      );
    }
    const operation = route.operation;

    // Stage 3: authenticate. The contract does not say how a missing or invalid token is answered;
    // 401 with WWW-Authenticate is what RFC 6750 section 3 prescribes for the bearer scheme.
    if (operation.authRequired) {
      const failure = checkBearer(header(request, "authorization"));
      if (failure !== undefined) {
        const challenge =
          failure === "missing" ? 'Bearer realm="plantstore"' : 'Bearer realm="plantstore", error="invalid_token"';
        const detail =
          failure === "missing"
            ? "the Authorization header is missing"
            : "the Authorization header is not Bearer with a valid token";
        return withCors(errorAnswer("PS_UNAUTHORIZED", detail, { "www-authenticate": challenge }));
      }
    }

    // The documented error answer on demand, as Prism offers it, so frontends can build error states.
    if (options.errorsOnDemand === true && /(^|[\s,;])code=400($|[\s,;])/.test(header(request, "prefer") ?? ""))
      return withCors(errorAnswer("PS_EXAMPLE_ERROR"));

    // Stages 4 and 5: parse and validate the body, as the contract decides (contract/acceptability.ts).
    const q = request.url.indexOf("?");
    const accepted = checkRequest(operation, {
      headers: request.headers,
      body: request.body,
      path,
      query: q < 0 ? "" : request.url.slice(q + 1),
    });
    if (!accepted.ok) return withCors(refusalAnswer(operation, accepted));

    // Stage 6: the operation's handler.
    const handler = handlers[operation.operationId];
    if (handler === undefined)
      return withCors(errorAnswer("PS_NOT_FOUND", `${operation.operationId} is not implemented`));
    return withCors(handler(accepted));
  };
}

/** The error answer for each reason the contract refuses a request for (the table is error-answers.ts). */
function refusalAnswer(operation: CompiledOperation, refusal: RequestRefusal): WireResponse {
  const { code, detail, extra } = refusalError(operation, refusal);
  return errorAnswer(code, detail, {}, extra);
}

function createPlant(store: PlantStore, body: NewPlant, exactId: ExactNumber | undefined): WireResponse {
  // Validation has proved id an int64, so canonicalInteger always has an answer here.
  const id = canonicalInteger(body.id, exactId) as string;
  // Only the contract's fields are copied: unknown properties (allowed) are not kept, and no
  // key of the request (__proto__ included) is ever assigned onto an object of ours.
  const plant: Plant = body.tag === undefined ? { name: body.name } : { name: body.name, tag: body.tag };
  const outcome = store.insert(id, plant);
  if (outcome === "duplicate") return errorAnswer("PS_DUPLICATE_ID", `id ${id}`);
  if (outcome === "full") return errorAnswer("PS_STORE_FULL", `${store.maxPlants} plants`);
  return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(plant) };
}

const UNRESERVED = /%(2[DdEe]|3[0-9]|[46][1-9A-Fa-f]|[57][0-9Aa]|5[Ff]|7[Ee])/g;

/**
 * The path of a request target: origin-form (`/plants?x`) or absolute-form (`http://host/plants`,
 * which RFC 9112 section 3.2.2 says servers must accept), without query or user info, with
 * percent-encoded unreserved characters decoded (RFC 3986 section 6.2.2.2).
 */
export function requestPath(target: string): string {
  const q = target.indexOf("?");
  let path = q < 0 ? target : target.slice(0, q);
  if (path.charCodeAt(0) === 0x2f && !path.includes("%")) return path; // the common case: /plants
  if (!path.startsWith("/")) {
    try {
      path = new URL(target).pathname;
    } catch {
      return path;
    }
  }
  return path.replace(UNRESERVED, (m) => String.fromCharCode(parseInt(m.slice(1), 16)));
}

function header(request: CoreRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
