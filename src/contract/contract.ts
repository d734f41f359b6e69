// No Node built-ins on this path: the fetch handler compiles the contract in browsers too. Reading
// and validating a spec file is load-contract.ts (Node only).
import type { Ajv, ValidateFunction } from "ajv";
import { KitError } from "../errors.js";
import { escapeRegExp } from "../regexp.js";
import { createAjv, dialectOf, type SchemaDialect } from "./ajv.js";
import { prepareAjvDocuments, subschemas, type AjvDocuments, type ContractNote } from "./ajv-document.js";
import { analyseNumber } from "./exact-json.js";
import { escapePointer, resolvePointer, safeDecode } from "./json-pointer.js";
import { shapeOfSchema, type ValueShape } from "./parameter-shape.js";
import type { ParameterLocation, ParameterStyle } from "./parameter-style.js";
import { mediaTypeLookup } from "./media-type.js";
import { createRouter, type Route } from "./routing.js";
import { propertiesOf } from "./schema-properties.js";
import { fromAjvErrors, type Violation } from "./violations.js";
import { unsatisfiable, type Unsatisfiable } from "./unsatisfiable.js";

// Pointers. Every `pointer` a compiled operation exposes is where the object really lives in
// `Contract.document`: the operation-relative pointer (`/paths/~1plants/post/responses/400`) when the
// object is written inline there, which is every pointer of the kit's own spec, and the target of its
// `$ref` (chains followed: `/components/responses/BadRequest`) when it is referenced. So every pointer
// resolves to the object itself, never to a `$ref` stub, and a pointer built on it (`${pointer}/content`,
// `${pointer}/schema`) resolves too: a finding cites the rule where a reader finds it, and the
// validators are compiled from the same place (Ajv resolves only pointers that exist in the document).

/** Validates a parsed value; an empty list means valid. Never throws for invalid data. */
export type Validator = (value: unknown) => readonly Violation[];

/** What a validator returns for a valid value: one list, never changed. */
const NO_VIOLATIONS: readonly Violation[] = Object.freeze([]);

export interface MediaTypeEntry {
  readonly mediaType: string;
  /** JSON pointer of the media type object in the spec, for findings that cite the rule. */
  readonly pointer: string;
  /** False when the spec gives no schema, so any body of this media type is accepted. */
  readonly hasSchema: boolean;
  readonly validate: Validator;
  /**
   * For `application/x-www-form-urlencoded` and `multipart/form-data` with an object schema: how each
   * field is read (its `encoding`, defaults applied: form, explode) and what its value is by its schema.
   */
  readonly form?: FormFields;
  /**
   * True for a body read as text, whole: a media type that is neither JSON nor a form, whose schema is
   * absent or takes strings (`text/plain` with `type: string`). The contract puts no rule on it.
   */
  readonly plainText: boolean;
}

/** The fields of a form body by name; others are read as text. */
export type FormFields = ReadonlyMap<
  string,
  { readonly style: ParameterStyle; readonly shape: ValueShape; readonly contentType?: string }
>;

export type { ParameterLocation };

/** A `content`-typed parameter or header: its one media type and that media type's schema. */
export interface ParameterContent {
  readonly mediaType: string;
  /** The media type's schema, its top `$ref`s followed (see schemaAt); undefined when it has none. */
  readonly schema: unknown;
  /** The media type object's pointer. */
  readonly pointer: string;
}

/** A parameter of an operation, with the OpenAPI defaults applied. */
export interface CompiledParameter {
  readonly name: string;
  readonly in: ParameterLocation;
  /** Path parameters are always required. */
  readonly required: boolean;
  readonly deprecated: boolean;
  /** Where the parameter object really lives. */
  readonly pointer: string;
  /** Defaults applied: `simple` for path and header, `form` for query and cookie. */
  readonly style: string;
  /** Defaults applied: true for style `form`, false otherwise. */
  readonly explode: boolean;
  readonly allowReserved: boolean;
  readonly allowEmptyValue: boolean;
  /** The parameter's schema, its top `$ref`s followed (it may still hold internal $refs); undefined with `content`. */
  readonly schema: unknown;
  /** For a `content`-typed parameter: its one media type and that media type's schema. */
  readonly content?: ParameterContent;
  /** What the value is, by its schema, for reading it from the wire (parameter-shape.ts). */
  readonly shape: ValueShape;
  /**
   * Validates a value already deserialised (a string, number, array or object as the schema wants).
   * Integers a double cannot hold may come as bigints or as exact-json's stand-in doubles; either is
   * judged as the body validators judge exact JSON (int64 bounds exactly). Violations are located as
   * `path/id`, `query/limit`, `header/X-Request-Id`, `cookie/session`.
   */
  readonly validate: Validator;
}

/** A response header (`Content-Type` is never one: OAS says it is ignored among response headers). */
export interface CompiledHeader {
  /** The name as the spec writes it; the map holding it is keyed by the lower-case name. */
  readonly name: string;
  readonly required: boolean;
  readonly deprecated: boolean;
  /** Where the header object really lives. */
  readonly pointer: string;
  /** Headers have style `simple`; explode defaults to false. */
  readonly explode: boolean;
  /** The header's schema, its top `$ref`s followed; undefined with `content`. */
  readonly schema: unknown;
  readonly content?: ParameterContent;
  /** What the value is, by its schema, for reading it from the wire (parameter-shape.ts). */
  readonly shape: ValueShape;
  /** Validates a value already deserialised, as CompiledParameter.validate; located as `header/<name>`. */
  readonly validate: Validator;
}

export interface CompiledResponse {
  readonly status: string;
  readonly pointer: string;
  /** By media type; empty for a bodiless response (no `content`). */
  readonly content: ReadonlyMap<string, MediaTypeEntry>;
  /** Documented headers by lower-case name. */
  readonly headers: ReadonlyMap<string, CompiledHeader>;
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
  /**
   * Path-item-level parameters merged with the operation's (the operation's win for the same name
   * and location; header names compare without case): the path item's not overridden, in document
   * order, then the operation's, in document order.
   */
  readonly parameters: readonly CompiledParameter[];
  readonly requestBody:
    | { readonly required: boolean; readonly pointer: string; readonly content: ReadonlyMap<string, MediaTypeEntry> }
    | undefined;
  /** By status as the spec writes it, upper case: `200`, `2XX`, `DEFAULT`. */
  readonly responses: ReadonlyMap<string, CompiledResponse>;
  /** Alternatives (any one suffices), each a list of schemes that must all hold; empty: no auth. */
  readonly security: readonly (readonly SecurityScheme[])[];
  /** False when the operation needs no credentials: no requirement, or an empty one (`{}`) among them. */
  readonly authRequired: boolean;
  /** The operation's `security`, else the document's, else (no security anywhere) the operation. */
  readonly pointerOfSecurity: string;
  matchPath(path: string): Readonly<Record<string, string>> | undefined;
  /** As matchPath, the values still percent-encoded (as parameter-parse.ts reads them by their style). */
  matchRawPath(path: string): Readonly<Record<string, string>> | undefined;
  /** The response the spec documents for a status: exact code, then `2XX`-style range, then default. */
  responseFor(status: number): CompiledResponse | undefined;
  /** The request media type entry covering a Content-Type header. */
  requestMediaType(contentType: string | undefined): MediaTypeEntry | undefined;
  /**
   * Why no success answer can keep the contract: every documented 2xx answer has a body schema and
   * none accepts any value (unsatisfiable.ts), the first one's rule said; undefined when one may.
   * A document fault: no server can answer such an operation with a success its contract accepts.
   */
  successUnsatisfiable(): Unsatisfiable | undefined;
  /**
   * Why no request can keep the contract: a required parameter's schema, or a required body's in
   * every documented media type, accepts no value (unsatisfiable.ts); undefined when one may.
   */
  requestUnsatisfiable(): Unsatisfiable | undefined;
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
  /**
   * What the kit read differently from a plain compile of the schemas, each at its pointer in
   * `document`: patterns compiled without the u flag, empty enums, schemas whose check is left out
   * because they cannot be compiled. In document order, then in the order operations compile.
   */
  readonly notes: readonly ContractNote[];
  operation(operationId: string): CompiledOperation | undefined;
  /**
   * Finds the operation for a request by OpenAPI's precedence (routing.ts): concrete paths before
   * templated ones, then the most specific template; `allowed` lists the methods when only paths matched.
   */
  route(method: string, path: string): RouteResult;
}

export type { ContractNote };

export type RouteResult = Route<CompiledOperation>;

/** A node of the document and the JSON pointer where it lives. */
export interface Located {
  readonly value: unknown;
  readonly pointer: string;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const LOCATIONS: readonly string[] = ["path", "query", "header", "cookie"];
const STATUS_KEY = /^(?:[1-5](?:\d\d|XX)|DEFAULT)$/;
const DOC_ID = "plantstore:openapi";
const MAX_HOPS = 32;

type Json = Record<string, unknown>;

/**
 * Follows the internal `$ref`s (`#/...`, chains too) at the top of the node at `pointer`: the object
 * it stands for and the pointer where that lives. Undefined when the pointer or a `$ref` leads nowhere,
 * or the `$ref`s go round in a circle. A schema's siblings of `$ref` (OAS 3.1) are not merged.
 */
export function locateRef(document: unknown, pointer: string): Located | undefined {
  let current = pointer;
  let value = resolvePointer(document, pointer);
  for (let hops = 0; hops <= MAX_HOPS; hops++) {
    const ref = refOf(value);
    if (ref === undefined) return value === undefined ? undefined : { value, pointer: current };
    current = ref;
    value = resolvePointer(document, ref);
  }
  return undefined;
}

/** Each document's resolver, made once: every part of the kit follows `$ref`s through the same one. */
const resolvers = new WeakMap<object, (ref: string) => unknown>();

/**
 * The one resolver of a document's internal `$ref`s (`#/components/schemas/Plant`), each followed
 * once and remembered: the document does not change once loaded. Schema helpers (propertiesOf)
 * cache by resolver, so one resolver per document lets them share what they found.
 */
export function documentResolver(document: unknown): (ref: string) => unknown {
  if (typeof document !== "object" || document === null)
    return (ref) => (ref.startsWith("#") ? locateRef(document, safeDecode(ref.slice(1)))?.value : undefined);
  let resolve = resolvers.get(document);
  if (resolve === undefined) {
    const found = new Map<string, unknown>();
    resolve = (ref) => {
      const known = found.get(ref);
      if (known !== undefined || found.has(ref)) return known;
      const value = ref.startsWith("#") ? locateRef(document, safeDecode(ref.slice(1)))?.value : undefined;
      found.set(ref, value);
      return value;
    };
    resolvers.set(document, resolve);
  }
  return resolve;
}

/**
 * The schema at a pointer of the contract's document with its top `$ref`s followed (the generators'
 * way in: `schemaAt(contract, `${entry.pointer}/schema`)`); it may still hold `$ref`s inside, which
 * the caller follows the same way. Undefined when nothing is there.
 */
export function schemaAt(contract: Pick<Contract, "document">, pointer: string): unknown {
  return locateRef(contract.document, pointer)?.value;
}

/** The JSON pointer an internal `$ref` names, or undefined for anything else. */
function refOf(node: unknown): string | undefined {
  if (typeof node !== "object" || node === null) return undefined;
  const ref = (node as Json).$ref;
  if (typeof ref !== "string" || !ref.startsWith("#")) return undefined;
  return safeDecode(ref.slice(1));
}

/** Compiles an already validated, bundled document (internal $refs only). */
export function compileContract(document: Json, source: string): Contract {
  const doc = structuredClone(document);
  const openapi = String(doc.openapi);
  const dialect = dialectOf(openapi);
  if (dialect === "openapi-3.0") normaliseOpenApi30Schemas(doc);
  const prepared = prepareAjvDocuments(doc, dialect);
  const side = (ajvDoc: Json): AjvSide => {
    const ajv = createAjv(dialect);
    // The whole document is one schema resource, so $refs (circular ones too) resolve as Ajv resolves
    // any JSON pointer, and each validator is compiled once from a pointer into it.
    ajv.addSchema(ajvDoc, DOC_ID, undefined, false);
    return { doc: ajvDoc, ajv, validators: new Map() };
  };
  const request = side(prepared.request);
  const response = prepared.response === prepared.request ? request : side(prepared.response);
  const c: Compiler = { doc, request, response, prepared, notes: prepared.notes };
  const info = (doc.info ?? {}) as Json;
  const schemes = deref(c, "/components/securitySchemes");

  const operations: CompiledOperation[] = [];
  for (const pathTemplate of Object.keys((doc.paths ?? {}) as Json)) {
    if (!pathTemplate.startsWith("/")) continue; // x- extensions
    const item = deref(c, `/paths/${escapePointer(pathTemplate)}`);
    const itemValue = (item.value ?? {}) as Json;
    for (const method of METHODS) {
      if (itemValue[method] === undefined) continue;
      const op = deref(c, `${item.pointer}/${method}`);
      operations.push(compileOperation(c, schemes, item, op, method, pathTemplate));
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
    notes: Object.freeze(c.notes.map((n) => Object.freeze({ ...n }))),
    operation: (id: string) => byId.get(id),
    route: createRouter(operations),
  });
}

/** An Ajv instance over one direction's copy of the document (ajv-document.ts). */
interface AjvSide {
  readonly doc: Json;
  readonly ajv: Ajv;
  /** Compiled validators by their schema (see validatorAt). */
  readonly validators: Map<string, ValidateFunction>;
}

interface Compiler {
  /** The document as `Contract.document` shows it: every pointer and lookup is in it. */
  readonly doc: Json;
  /** Request validators (parameters, request bodies) and response validators (headers, bodies). */
  readonly request: AjvSide;
  readonly response: AjvSide;
  readonly prepared: AjvDocuments;
  readonly notes: ContractNote[];
}

/**
 * The node at a pointer with its `$ref`s followed, and where it really lives. A `$ref` that leads
 * nowhere or round in a circle makes the document invalid: the error names where it was met.
 */
function deref(c: Compiler, pointer: string): Located {
  const value = resolvePointer(c.doc, pointer);
  if (refOf(value) === undefined) return { value, pointer };
  const found = locateRef(c.doc, pointer);
  if (found === undefined) {
    const ref = String((value as Json).$ref);
    throw new KitError("PS_SPEC_INVALID", `the $ref ${ref} at ${pointer} leads nowhere or round in a circle`);
  }
  return found;
}

function compileOperation(
  c: Compiler,
  schemes: Located,
  item: Located,
  op: Located,
  method: string,
  pathTemplate: string,
): CompiledOperation {
  const pointer = op.pointer;
  const o = (op.value ?? {}) as Json;
  const operationId = typeof o.operationId === "string" ? o.operationId : `${method.toUpperCase()} ${pathTemplate}`;
  const parameters = mergeParameters(
    compileParameters(c, (item.value ?? {}) as Json, item.pointer),
    compileParameters(c, o, pointer),
  );
  let requestBody: CompiledOperation["requestBody"];
  if (o.requestBody !== undefined) {
    const body = deref(c, `${pointer}/requestBody`);
    requestBody = {
      required: (body.value as Json).required === true,
      pointer: body.pointer,
      content: compileContent(c, c.request, body, "body"),
    };
  }
  const responses = new Map<string, CompiledResponse>();
  for (const status of Object.keys((o.responses ?? {}) as Json)) {
    if (!STATUS_KEY.test(status.toUpperCase())) continue; // x- extensions
    const response = deref(c, `${pointer}/responses/${escapePointer(status)}`);
    responses.set(status.toUpperCase(), {
      status,
      pointer: response.pointer,
      content: compileContent(c, c.response, response, "body"),
      headers: compileHeaders(c, response),
    });
  }
  const { security, pointerOfSecurity } = compileSecurity(c, schemes, o, pointer);
  const { regex, names } = compilePathTemplate(pathTemplate);
  const requestLookup = requestBody === undefined ? undefined : mediaTypeLookup(requestBody.content);
  const byStatus = new Map<number, CompiledResponse | undefined>();
  // Found when first asked: most runs never need it.
  let noSuccess: Unsatisfiable | undefined | null = null;
  let noRequest: Unsatisfiable | undefined | null = null;
  return Object.freeze({
    operationId,
    method,
    pathTemplate,
    pointer,
    parameters,
    requestBody,
    responses,
    security,
    authRequired: security.length > 0 && security.every((alternative) => alternative.length > 0),
    pointerOfSecurity,
    matchPath(path: string) {
      // A template without parameters matches itself only: no expression run, no object made.
      if (names.length === 0) return path === pathTemplate ? NO_PARAMS : undefined;
      const m = regex.exec(path);
      if (m === null) return undefined;
      const params: Record<string, string> = Object.create(null);
      names.forEach((name, i) => (params[name] = safeDecode(m[i + 1] ?? "")));
      return params;
    },
    matchRawPath(path: string) {
      if (names.length === 0) return path === pathTemplate ? NO_PARAMS : undefined;
      const m = regex.exec(path);
      if (m === null) return undefined;
      const params: Record<string, string> = Object.create(null);
      names.forEach((name, i) => (params[name] = m[i + 1] ?? ""));
      return params;
    },
    responseFor(status: number) {
      // Found once per status (at most 500 of them), by number: every answer asks, twice.
      if (byStatus.has(status)) return byStatus.get(status);
      const found =
        responses.get(String(status)) ?? responses.get(`${String(status)[0]}XX`) ?? responses.get("DEFAULT");
      if (Number.isInteger(status) && status >= 100 && status <= 599) byStatus.set(status, found);
      return found;
    },
    requestMediaType(contentType: string | undefined) {
      return requestLookup?.(contentType);
    },
    successUnsatisfiable() {
      if (noSuccess === null) noSuccess = successUnsatisfiable(c.doc, responses);
      return noSuccess;
    },
    requestUnsatisfiable() {
      if (noRequest === null) noRequest = requestUnsatisfiable(c.doc, parameters, requestBody);
      return noRequest;
    },
  });
}

/** The rule that keeps every request from keeping the contract (see CompiledOperation). */
function requestUnsatisfiable(
  doc: Json,
  parameters: readonly CompiledParameter[],
  body: CompiledOperation["requestBody"],
): Unsatisfiable | undefined {
  for (const p of parameters) {
    if (!p.required || (p.content !== undefined && p.content.schema === undefined)) continue;
    const found = unsatisfiable(doc, p.content !== undefined ? `${p.content.pointer}/schema` : `${p.pointer}/schema`);
    if (found !== undefined) return found;
  }
  if (body === undefined || !body.required || body.content.size === 0) return undefined;
  let first: Unsatisfiable | undefined;
  for (const entry of body.content.values()) {
    if (!entry.hasSchema) return undefined;
    const found = unsatisfiable(doc, `${entry.pointer}/schema`);
    if (found === undefined) return undefined;
    first ??= found;
  }
  return first;
}

/** The rule that keeps every documented 2xx answer from being made (see CompiledOperation). */
function successUnsatisfiable(doc: Json, responses: ReadonlyMap<string, CompiledResponse>): Unsatisfiable | undefined {
  let first: Unsatisfiable | undefined;
  for (const [status, response] of responses) {
    if (!/^2(\d\d|XX)$/.test(status)) continue;
    if (response.content.size === 0) return undefined;
    for (const entry of response.content.values()) {
      if (!entry.hasSchema) return undefined;
      const found = unsatisfiable(doc, `${entry.pointer}/schema`, "response");
      if (found === undefined) return undefined;
      first ??= found;
    }
  }
  return first;
}

/** An operation's security requirements (its own, else the document's), each scheme resolved by name. */
function compileSecurity(
  c: Compiler,
  schemes: Located,
  o: Json,
  pointer: string,
): Pick<CompiledOperation, "security" | "pointerOfSecurity"> {
  const ownSecurity = Array.isArray(o.security);
  const rawSecurity = (ownSecurity ? o.security : (c.doc.security ?? [])) as Json[];
  const security = rawSecurity.map((requirement) =>
    Object.keys(requirement).map((name) => {
      const known = typeof schemes.value === "object" && schemes.value !== null && Object.hasOwn(schemes.value, name);
      const s = (known ? (deref(c, `${schemes.pointer}/${escapePointer(name)}`).value ?? {}) : {}) as Json;
      return {
        name,
        type: String(s.type ?? ""),
        scheme: typeof s.scheme === "string" ? s.scheme.toLowerCase() : undefined,
        in: typeof s.in === "string" ? s.in : undefined,
        paramName: typeof s.name === "string" ? s.name : undefined,
      };
    }),
  );
  const pointerOfSecurity = ownSecurity ? `${pointer}/security` : Array.isArray(c.doc.security) ? "/security" : pointer;
  return { security, pointerOfSecurity };
}

/** The `parameters` of a path item or an operation (`owner` lives at `ownerPointer`). */
function compileParameters(c: Compiler, owner: Json, ownerPointer: string): CompiledParameter[] {
  if (!Array.isArray(owner.parameters)) return [];
  const all = owner.parameters.map((_, i) => {
    const { value, pointer } = deref(c, `${ownerPointer}/parameters/${i}`);
    const p = (value ?? {}) as Json;
    const name = String(p.name ?? "");
    const where = String(p.in ?? "");
    if (!LOCATIONS.includes(where))
      throw new KitError("PS_SPEC_INVALID", `the parameter at ${pointer} is in ${JSON.stringify(p.in)}`);
    const location = where as ParameterLocation;
    const style =
      typeof p.style === "string" ? p.style : location === "query" || location === "cookie" ? "form" : "simple";
    const typed = compileTyped(c, c.request, p, pointer, `${location}/${name}`);
    return Object.freeze({
      name,
      in: location,
      required: location === "path" || p.required === true,
      deprecated: p.deprecated === true,
      pointer,
      style,
      explode: typeof p.explode === "boolean" ? p.explode : style === "form",
      allowReserved: p.allowReserved === true,
      allowEmptyValue: p.allowEmptyValue === true,
      ...typed,
    });
  });
  // OAS 3.x: a header parameter named Accept, Content-Type or Authorization "SHALL be ignored".
  // HTTP's own framing and connection fields are left to the HTTP client and server as well: a value
  // a generator picked for Content-Length beside a body of another length cannot even be sent.
  return all.filter((p) => {
    if (p.in !== "header") return true;
    const name = p.name.toLowerCase();
    if (FRAMING_HEADERS.has(name)) {
      const message = `the header parameter ${p.name} is HTTP's own (RFC 9110 7.6.1, RFC 9112 6): left to HTTP, not judged`;
      if (!c.notes.some((n) => n.pointer === p.pointer && n.message === message))
        c.notes.push({ pointer: p.pointer, message });
    }
    return !IGNORED_HEADERS.has(name) && !FRAMING_HEADERS.has(name);
  });
}

const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);
/** The fields that frame a message or manage its connection (RFC 9112 section 6, RFC 9110 section 7.6.1). */
const FRAMING_HEADERS = new Set([
  "content-length",
  "transfer-encoding",
  "host",
  "connection",
  "keep-alive",
  "te",
  "trailer",
  "upgrade",
  "proxy-connection",
]);

/** The path item's parameters that the operation does not override, then the operation's. */
function mergeParameters(fromItem: CompiledParameter[], fromOperation: CompiledParameter[]): CompiledParameter[] {
  if (fromItem.length === 0) return fromOperation;
  const key = (p: CompiledParameter): string => `${p.in}\u0000${p.in === "header" ? p.name.toLowerCase() : p.name}`;
  const overridden = new Set(fromOperation.map(key));
  return [...fromItem.filter((p) => !overridden.has(key(p))), ...fromOperation];
}

/** A response's `headers`, `Content-Type` left out (OAS 3.x: "it SHALL be ignored"). */
function compileHeaders(c: Compiler, response: Located): ReadonlyMap<string, CompiledHeader> {
  const out = new Map<string, CompiledHeader>();
  const headers = ((response.value ?? {}) as Json).headers;
  if (typeof headers !== "object" || headers === null) return out;
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() === "content-type") continue;
    const { value, pointer } = deref(c, `${response.pointer}/headers/${escapePointer(name)}`);
    const h = (value ?? {}) as Json;
    out.set(
      name.toLowerCase(),
      Object.freeze({
        name,
        required: h.required === true,
        deprecated: h.deprecated === true,
        pointer,
        explode: h.explode === true,
        ...compileTyped(c, c.response, h, pointer, `header/${name}`),
      }),
    );
  }
  return out;
}

/** The schema, or the one media type of `content`, of a parameter or header object, and its validator. */
function compileTyped(
  c: Compiler,
  side: AjvSide,
  object: Json,
  pointer: string,
  root: string,
): { schema: unknown; content?: ParameterContent; shape: ValueShape; validate: Validator } {
  let schemaPointer: string | undefined;
  let content: ParameterContent | undefined;
  if (object.schema !== undefined) schemaPointer = `${pointer}/schema`;
  else if (typeof object.content === "object" && object.content !== null) {
    const mediaType = Object.keys(object.content)[0];
    if (mediaType !== undefined) {
      const entry = deref(c, `${pointer}/content/${escapePointer(mediaType)}`);
      const hasSchema = ((entry.value ?? {}) as Json).schema !== undefined;
      if (hasSchema) schemaPointer = `${entry.pointer}/schema`;
      content = Object.freeze({
        mediaType,
        pointer: entry.pointer,
        schema: hasSchema ? locateRef(c.doc, `${entry.pointer}/schema`)?.value : undefined,
      });
    }
  }
  if (schemaPointer === undefined)
    return { schema: undefined, ...(content && { content }), shape: shapeOfSchema(undefined), validate: () => [] };
  const resolve = resolverOf(c);
  const shape = shapeOfSchema(locateRef(c.doc, schemaPointer)?.value, resolve);
  const fn = validatorAt(c, side, schemaPointer);
  const validate: Validator = (value) => {
    const v = withStandIns(value);
    return fn(v) ? NO_VIOLATIONS : fromAjvErrors(fn.errors, root);
  };
  if (content !== undefined) return { schema: undefined, content, shape, validate };
  return { schema: locateRef(c.doc, schemaPointer)?.value, shape, validate };
}

/** The content of a request body or response (at `owner.pointer`), by media type. */
function compileContent(c: Compiler, side: AjvSide, owner: Located, root: string): ReadonlyMap<string, MediaTypeEntry> {
  const out = new Map<string, MediaTypeEntry>();
  const content = ((owner.value ?? {}) as Json).content;
  if (typeof content !== "object" || content === null) return out;
  for (const mediaType of Object.keys(content)) {
    const { value, pointer } = deref(c, `${owner.pointer}/content/${escapePointer(mediaType)}`);
    const hasSchema = ((value ?? {}) as Json).schema !== undefined;
    let validate: Validator = () => [];
    if (hasSchema) {
      const fn = validatorAt(c, side, `${pointer}/schema`);
      validate = (v) => (fn(v) ? NO_VIOLATIONS : fromAjvErrors(fn.errors, root));
    }
    const isForm = /^(application\/x-www-form-urlencoded|multipart\/form-data)$/i.test(mediaType.trim());
    const form = isForm ? formFields(c, value as Json, pointer) : undefined;
    const plainText = !isForm && !/json/i.test(mediaType) && (!hasSchema || takesStrings(c, `${pointer}/schema`));
    out.set(mediaType, { mediaType, pointer, hasSchema, validate, plainText, ...(form === undefined ? {} : { form }) });
  }
  return out;
}

/** Follows a document-internal `$ref` of the contract's document; undefined for any other. */
function resolverOf(c: Compiler): (ref: string) => unknown {
  return (ref) => (ref.startsWith("#") ? locateRef(c.doc, decodeURIComponent(ref.slice(1)))?.value : undefined);
}

/** Whether the schema at a pointer is a scalar one that takes strings (or any value). */
function takesStrings(c: Compiler, schemaPointer: string): boolean {
  const shape = shapeOfSchema(locateRef(c.doc, schemaPointer)?.value, resolverOf(c));
  return shape.kind === "primitive" && (shape.types.length === 0 || shape.types.includes("string"));
}

/** How each property of a form body's object schema is read: its `encoding` entry, or form with explode. */
function formFields(c: Compiler, mediaTypeObject: Json, pointer: string): FormFields | undefined {
  const resolve = resolverOf(c);
  const schema = locateRef(c.doc, `${pointer}/schema`)?.value;
  if (schema === undefined) return undefined;
  const { properties } = propertiesOf(schema, resolve);
  const encoding = (mediaTypeObject.encoding ?? {}) as Record<string, Json>;
  const fields = new Map<string, { style: ParameterStyle; shape: ValueShape; contentType?: string }>();
  for (const [name, propertySchema] of properties) {
    const e = encoding[name] ?? {};
    const style = typeof e.style === "string" ? e.style : "form";
    const contentType = typeof e.contentType === "string" ? e.contentType : undefined;
    fields.set(name, {
      style: { name, in: "query", style, explode: typeof e.explode === "boolean" ? e.explode : style === "form" },
      shape: shapeOfSchema(propertySchema, resolve),
      ...(contentType === undefined ? {} : { contentType }),
    });
  }
  return fields;
}

/**
 * The validator of the schema at a pointer that exists in the document. Compiling is most of the cost
 * of a contract (about a millisecond a schema), and real documents repeat themselves, so a validator
 * is compiled once per schema: a `$ref`-only schema is the schema it names (every body that is
 * `$ref: '#/components/schemas/Plant'` shares one validator), and schemas written out alike share one
 * when nothing in them depends on where they sit (no `$id`, anchors or `$ref`s other than `#/...`).
 */
function validatorAt(c: Compiler, side: AjvSide, schemaPointer: string): Check {
  const at = pureRefTarget(c, schemaPointer) ?? schemaPointer;
  const copyAt = c.prepared.toCopy(at);
  const key = (underId(c.doc, at) ? undefined : placeFreeText(resolvePointer(side.doc, copyAt))) ?? `@${copyAt}`;
  let fn = side.validators.get(key);
  if (fn !== undefined) return fn;
  for (let leftOut = 0; fn === undefined; leftOut++) {
    try {
      fn = compileAt(side, copyAt);
    } catch (error) {
      // A $ref to nothing is no valid OpenAPI; any other construct Ajv cannot take (3.1 schemas are
      // not checked keyword by keyword at load) costs its own check only, with a note.
      if (isMissingRef(error) || leftOut >= MAX_LEFT_OUT)
        throw new KitError(
          "PS_SPEC_INVALID",
          `the schema at ${schemaPointer} cannot be compiled: ${(error as Error).message}`,
          { cause: error },
        );
      const culprit = uncompilable(side, copyAt, new Set()) ?? { pointer: copyAt, message: (error as Error).message };
      leaveOut(resolvePointer(side.doc, culprit.pointer));
      const pointer = c.prepared.toDocument(culprit.pointer);
      const message = `the schema cannot be compiled (${culprit.message}): its check is left out`;
      if (!c.notes.some((n) => n.pointer === pointer && n.message === message)) c.notes.push({ pointer, message });
    }
  }
  side.validators.set(key, fn);
  return fn;
}

/** A compiled schema: Ajv's, or one that accepts anything. */
type Check = ((data: unknown) => boolean) & { errors?: ValidateFunction["errors"] };

/** How many schemas one validator may leave out before the document is refused as a whole. */
const MAX_LEFT_OUT = 64;

function compileAt(side: AjvSide, copyPointer: string): ValidateFunction {
  // A URI fragment: encodeURI leaves `#` alone, which would end the fragment early.
  return side.ajv.compile({ $ref: `${DOC_ID}#${encodeURI(copyPointer).replace(/#/g, "%23")}` });
}

function isMissingRef(error: unknown): boolean {
  return typeof error === "object" && error !== null && "missingRef" in error;
}

/**
 * The deepest schema, at or below a schema that fails to compile, that fails itself while what it
 * holds and `$ref`s compiles: the construct to leave out. Undefined when no subschema fails alone.
 */
function uncompilable(
  side: AjvSide,
  pointer: string,
  seen: Set<string>,
): { pointer: string; message: string } | undefined {
  const node = resolvePointer(side.doc, pointer);
  if (typeof node !== "object" || node === null) return undefined;
  const inside = subschemas(node as Json).map(([path]) => pointer + path);
  const ref = refOf(node);
  for (const child of ref === undefined ? inside : [...inside, ref]) {
    if (seen.has(child)) continue;
    seen.add(child);
    try {
      compileAt(side, child);
    } catch (error) {
      if (isMissingRef(error)) continue;
      return uncompilable(side, child, seen) ?? { pointer: child, message: (error as Error).message };
    }
  }
  return undefined;
}

/**
 * Empties a schema of the Ajv copy in place, so it accepts anything: in place because Ajv keeps the
 * objects it resolved `$ref`s to, and a replaced object would stay in its hands.
 */
function leaveOut(schema: unknown): void {
  if (typeof schema !== "object" || schema === null) return;
  for (const k of Object.keys(schema)) delete (schema as Json)[k];
}

/** Where a schema that is only a `$ref` (chains too) leads: the pointer itself for any other schema. */
function pureRefTarget(c: Compiler, pointer: string): string | undefined {
  let at = pointer;
  for (let hops = 0; hops <= MAX_HOPS; hops++) {
    const node = resolvePointer(c.doc, at);
    const ref = refOf(node);
    if (ref === undefined) return node === undefined ? undefined : at;
    if (Object.keys(node as Json).length !== 1) return at;
    at = ref;
  }
  return undefined;
}

/** Whether an object above the pointer has a `$id`, which would change what the `$ref`s below it mean. */
function underId(doc: Json, pointer: string): boolean {
  const keys = pointer.split("/").slice(1);
  let node: unknown = doc;
  for (const key of keys.slice(0, -1)) {
    node = resolvePointer(node, `/${key}`);
    if (typeof node === "object" && node !== null && typeof (node as Json).$id === "string") return true;
  }
  return false;
}

/** Keywords that make a schema's meaning depend on where it sits in the document. */
const PLACE_BOUND = new Set(["$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveAnchor", "$recursiveRef"]);

/** A schema's JSON text, the compile cache's key, when its meaning does not depend on its place. */
function placeFreeText(schema: unknown): string | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  let free = true;
  let text: string;
  try {
    text = JSON.stringify(schema, (key, value: unknown) => {
      if (PLACE_BOUND.has(key) || (key === "$ref" && (typeof value !== "string" || !value.startsWith("#/"))))
        free = false;
      return value;
    });
  } catch {
    return undefined;
  }
  return free ? `=${text}` : undefined;
}

/**
 * A deserialised parameter value with its bigints replaced by the doubles exact-json would put in a
 * parsed body (a stand-in on the same side of the int64 bounds, a non-integer kept a non-integer), so
 * a parameter beyond 2^53 is judged exactly as the same number in a body. Values without bigints are
 * returned as they are.
 */
function withStandIns(value: unknown): unknown {
  if (typeof value === "bigint") {
    const literal = value.toString();
    return analyseNumber(literal)?.standIn ?? Number(literal);
  }
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((v, i) => {
      const w = withStandIns(v);
      if (w !== v) (out ??= [...value])[i] = w;
    });
    return out ?? value;
  }
  let out: Json | undefined;
  for (const [k, v] of Object.entries(value)) {
    const w = withStandIns(v);
    if (w !== v) {
      out ??= { ...(value as Json) };
      Object.defineProperty(out, k, { value: w, enumerable: true, writable: true, configurable: true });
    }
  }
  return out ?? value;
}

/** The path parameters of a template that has none. */
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze(Object.create(null) as Record<string, string>);

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
