// No Node built-ins on this path: the fetch handler compiles the contract in browsers too. Reading
// and validating a spec file is load-contract.ts (Node only).
import type { Ajv, ValidateFunction } from "ajv";
import { KitError } from "../errors.js";
import { escapeRegExp } from "../regexp.js";
import { createAjv, dialectOf, type SchemaDialect } from "./ajv.js";
import { escapePointer, resolvePointer } from "./json-pointer.js";
import { matchMediaType } from "./media-type.js";
import { fromAjvErrors, type Violation } from "./violations.js";

/** Validates a parsed value; an empty list means valid. Never throws for invalid data. */
export type Validator = (value: unknown) => Violation[];

export interface MediaTypeEntry {
  readonly mediaType: string;
  /** JSON pointer of the media type object in the spec, for findings that cite the rule. */
  readonly pointer: string;
  /** False when the spec gives no schema, so any body of this media type is accepted. */
  readonly hasSchema: boolean;
  readonly validate: Validator;
}

export interface CompiledResponse {
  readonly status: string;
  readonly pointer: string;
  readonly content: ReadonlyMap<string, MediaTypeEntry>;
}

export interface SecurityScheme {
  readonly name: string;
  readonly type: string;
  /** For http schemes: `bearer`, `basic`, ... in lower case. */
  readonly scheme?: string;
  /** For apiKey schemes: where the key goes and under which name. */
  readonly in?: string;
  readonly paramName?: string;
}

export interface CompiledOperation {
  readonly operationId: string;
  /** Lower case HTTP method. */
  readonly method: string;
  readonly pathTemplate: string;
  readonly pointer: string;
  readonly requestBody:
    | { readonly required: boolean; readonly pointer: string; readonly content: ReadonlyMap<string, MediaTypeEntry> }
    | undefined;
  readonly responses: ReadonlyMap<string, CompiledResponse>;
  /** Alternatives (any one suffices), each a list of schemes that must all hold; empty: no auth. */
  readonly security: readonly (readonly SecurityScheme[])[];
  /** False when the operation needs no credentials: no requirement, or an empty one (`{}`) among them. */
  readonly authRequired: boolean;
  readonly pointerOfSecurity: string;
  matchPath(path: string): Readonly<Record<string, string>> | undefined;
  /** The response the spec documents for a status: exact code, then `2XX`-style range, then default. */
  responseFor(status: number): CompiledResponse | undefined;
  /** The request media type entry covering a Content-Type header. */
  requestMediaType(contentType: string | undefined): MediaTypeEntry | undefined;
}

/** An OpenAPI document, validated and compiled once; immutable and shared by server and harness. */
export interface Contract {
  readonly source: string;
  readonly openapi: string;
  readonly dialect: SchemaDialect;
  readonly title: string;
  readonly version: string;
  readonly operations: readonly CompiledOperation[];
  /** The bundled document the contract was compiled from (internal $refs only), for generators. */
  readonly document: unknown;
  operation(operationId: string): CompiledOperation | undefined;
  /** Finds the operation for a request; `allowed` lists the methods when only the path matched. */
  route(method: string, path: string): RouteResult;
}

export type RouteResult =
  | { readonly kind: "found"; readonly operation: CompiledOperation; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: "method-not-allowed"; readonly allowed: readonly string[] }
  | { readonly kind: "not-found" };

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const DOC_ID = "plantstore:openapi";

type Json = Record<string, unknown>;

/** Compiles an already validated, bundled document (internal $refs only). */
export function compileContract(document: Json, source: string): Contract {
  const doc = structuredClone(document);
  const openapi = String(doc.openapi);
  const dialect = dialectOf(openapi);
  if (dialect === "openapi-3.0") normaliseOpenApi30Schemas(doc);
  const ajv = createAjv(dialect);
  // The whole document is one schema resource, so $refs (circular ones too) resolve as Ajv resolves
  // any JSON pointer, and each validator is compiled once from a pointer into it.
  ajv.addSchema(doc, DOC_ID, undefined, false);
  const deref = makeDeref(doc);
  const info = (doc.info ?? {}) as Json;
  const schemes = (deref((doc.components as Json | undefined)?.securitySchemes) ?? {}) as Json;

  const operations: CompiledOperation[] = [];
  const paths = (doc.paths ?? {}) as Json;
  for (const [pathTemplate, rawItem] of Object.entries(paths)) {
    const item = (deref(rawItem) ?? {}) as Json;
    for (const method of METHODS) {
      const op = deref(item[method]) as Json | undefined;
      if (op === undefined) continue;
      const pointer = `/paths/${escapePointer(pathTemplate)}/${method}`;
      operations.push(compileOperation(ajv, deref, doc, schemes, op, method, pathTemplate, pointer));
    }
  }
  const byId = new Map(operations.map((o) => [o.operationId, o]));
  return Object.freeze({
    source,
    openapi,
    dialect,
    title: String(info.title ?? ""),
    version: String(info.version ?? ""),
    operations: Object.freeze(operations),
    document: doc,
    operation: (id: string) => byId.get(id),
    route(method: string, path: string): RouteResult {
      const m = method.toLowerCase();
      const allowed: string[] = [];
      for (const op of operations) {
        const params = op.matchPath(path);
        if (params === undefined) continue;
        if (op.method === m) return { kind: "found", operation: op, params };
        allowed.push(op.method.toUpperCase());
      }
      return allowed.length > 0 ? { kind: "method-not-allowed", allowed } : { kind: "not-found" };
    },
  });
}

function compileOperation(
  ajv: Ajv,
  deref: (node: unknown) => unknown,
  doc: Json,
  schemes: Json,
  op: Json,
  method: string,
  pathTemplate: string,
  pointer: string,
): CompiledOperation {
  const operationId = typeof op.operationId === "string" ? op.operationId : `${method.toUpperCase()} ${pathTemplate}`;
  const body = deref(op.requestBody) as Json | undefined;
  const requestBody =
    body === undefined
      ? undefined
      : {
          required: body.required === true,
          pointer: `${pointer}/requestBody`,
          content: compileContent(ajv, deref, body.content, `${pointer}/requestBody/content`, "body"),
        };
  const responses = new Map<string, CompiledResponse>();
  for (const [status, raw] of Object.entries((op.responses ?? {}) as Json)) {
    const response = (deref(raw) ?? {}) as Json;
    const rp = `${pointer}/responses/${escapePointer(status)}`;
    responses.set(status.toUpperCase(), {
      status,
      pointer: rp,
      content: compileContent(ajv, deref, response.content, `${rp}/content`, "body"),
    });
  }
  const ownSecurity = Array.isArray(op.security);
  const rawSecurity = (ownSecurity ? op.security : (doc.security ?? [])) as Json[];
  const security = rawSecurity.map((requirement) =>
    Object.keys(requirement).map((name) => {
      const s = (deref(schemes[name]) ?? {}) as Json;
      return {
        name,
        type: String(s.type ?? ""),
        scheme: typeof s.scheme === "string" ? s.scheme.toLowerCase() : undefined,
        in: typeof s.in === "string" ? s.in : undefined,
        paramName: typeof s.name === "string" ? s.name : undefined,
      };
    }),
  );
  const { regex, names } = compilePathTemplate(pathTemplate);
  const mediaTypeCache = new Map<string, MediaTypeEntry | null>();
  return Object.freeze({
    operationId,
    method,
    pathTemplate,
    pointer,
    requestBody,
    responses,
    security,
    authRequired: security.length > 0 && security.every((alternative) => alternative.length > 0),
    pointerOfSecurity: ownSecurity ? `${pointer}/security` : "/security",
    matchPath(path: string) {
      const m = regex.exec(path);
      if (m === null) return undefined;
      const params: Record<string, string> = Object.create(null);
      names.forEach((name, i) => (params[name] = safeDecode(m[i + 1] ?? "")));
      return params;
    },
    responseFor(status: number) {
      return responses.get(String(status)) ?? responses.get(`${String(status)[0]}XX`) ?? responses.get("DEFAULT");
    },
    requestMediaType(contentType: string | undefined) {
      if (requestBody === undefined || contentType === undefined)
        return requestBody === undefined ? undefined : matchMediaType(requestBody.content, contentType)?.value;
      // Clients send few distinct Content-Type values; each is parsed once (the cache is bounded).
      let hit = mediaTypeCache.get(contentType);
      if (hit === undefined) {
        hit = matchMediaType(requestBody.content, contentType)?.value ?? null;
        if (mediaTypeCache.size >= 64) mediaTypeCache.clear();
        mediaTypeCache.set(contentType, hit);
      }
      return hit ?? undefined;
    },
  });
}

function compileContent(
  ajv: Ajv,
  deref: (node: unknown) => unknown,
  content: unknown,
  pointer: string,
  root: string,
): ReadonlyMap<string, MediaTypeEntry> {
  const out = new Map<string, MediaTypeEntry>();
  for (const [mediaType, raw] of Object.entries((content ?? {}) as Json)) {
    const entryPointer = `${pointer}/${escapePointer(mediaType)}`;
    const entry = (deref(raw) ?? {}) as Json;
    const hasSchema = entry.schema !== undefined;
    let validate: Validator = () => [];
    if (hasSchema) {
      let fn: ValidateFunction;
      try {
        fn = ajv.compile({ $ref: `${DOC_ID}#${encodeURI(`${entryPointer}/schema`)}` });
      } catch (error) {
        throw new KitError(
          "PS_SPEC_INVALID",
          `the schema at ${entryPointer}/schema cannot be compiled: ${(error as Error).message}`,
          { cause: error },
        );
      }
      validate = (value) => (fn(value) ? [] : fromAjvErrors(fn.errors, root));
    }
    out.set(mediaType, { mediaType, pointer: entryPointer, hasSchema, validate });
  }
  return out;
}

/** Follows internal `$ref`s (`#/...`) of non-schema objects: path items, bodies, responses, schemes. */
function makeDeref(doc: Json): (node: unknown) => unknown {
  return (node) => {
    let current = node;
    for (let hops = 0; hops < 32; hops++) {
      if (typeof current !== "object" || current === null) return current;
      const ref = (current as Json).$ref;
      if (typeof ref !== "string" || !ref.startsWith("#")) return current;
      current = resolvePointer(doc, decodeURIComponent(ref.slice(1)));
    }
    return current;
  };
}

function compilePathTemplate(template: string): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const m = /^\{([^}]+)\}$/.exec(part);
      if (m) {
        names.push(m[1] as string);
        return "([^/]+)";
      }
      return escapeRegExp(part);
    })
    .join("");
  return { regex: new RegExp(`^${pattern}$`), names };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * OpenAPI 3.0's schema object is draft-04-like: `exclusiveMinimum: true` qualifies `minimum`.
 * Ajv's draft-07 core wants the number, so the boolean form is rewritten once, at load.
 */
function normaliseOpenApi30Schemas(node: unknown): void {
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const n = stack.pop();
    if (typeof n !== "object" || n === null) continue;
    const o = n as Json;
    for (const [flag, bound] of [
      ["exclusiveMinimum", "minimum"],
      ["exclusiveMaximum", "maximum"],
    ] as const) {
      if (typeof o[flag] === "boolean") {
        if (o[flag] === true && typeof o[bound] === "number") {
          o[flag] = o[bound];
          delete o[bound];
        } else delete o[flag];
      }
    }
    for (const v of Object.values(o)) if (typeof v === "object" && v !== null) stack.push(v);
  }
}
