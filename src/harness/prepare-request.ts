// Preparing a fixture step's request: the values a fixture computes (step-values.ts), the body and
// its default Content-Type, headers, query, the operation's parameters written by their style,
// credentials and the path, into a request ready to send but for the target's base URL.
import type { CompiledOperation } from "../contract/index.js";
import {
  buildQueryString,
  serializeCookie,
  serializeHeader,
  serializePath,
  serializeQuery,
  stringifyExact,
  styleOfCompiled,
} from "../contract/index.js";
import { credentialsFor } from "./credentials.js";
import { FRESH_KINDS, freshValue, type FreshKind, type Random } from "./fresh.js";
import {
  stepOperation,
  type EarlierExchange,
  type Fixture,
  type FixtureRequest,
  type FixtureStep,
  type PreparedRequest,
  type Secrets,
} from "./case-types.js";
import { NothingThere, substituteValues, valueFrom, type ValueSources } from "./step-values.js";

/**
 * Resolves one step's request: fresh values (kept per case in `fresh`, so steps share them), values
 * from earlier steps (`$from`), credentials, parameters by their style, path parameters, query, body
 * and its default Content-Type. Throws NotYetKnown when a value comes from an earlier answer that
 * does not exist yet (the fixture honesty check, before anything is sent).
 */
export function prepareRequest(
  fixture: Fixture,
  stepIndex: number,
  fresh: Map<string, bigint | string>,
  random: Random,
  secrets: Secrets,
  earlier: readonly EarlierExchange[] = [],
): PreparedRequest {
  const step = fixture.steps[stepIndex] as FixtureStep;
  const r = step.request;
  const op = stepOperation(fixture, stepIndex);
  const fallbacks: string[] = [];
  const values = valueSources(fresh, random, earlier, stepIndex, fallbacks);
  const body = requestBody(r, values);

  // identity: the harness judges the bytes the server means, without asking for a compression.
  const headers: Record<string, string> = { "accept-encoding": "identity" };
  const firstMediaType = op.requestBody === undefined ? undefined : [...op.requestBody.content.keys()][0];
  if (body !== undefined && firstMediaType !== undefined) headers["content-type"] = firstMediaType;
  for (const [k, v] of Object.entries(r.headers ?? {})) headers[k.toLowerCase()] = v;
  const queryPieces = r.query === undefined ? "" : new URLSearchParams(r.query).toString();
  const pieces: string[] = queryPieces === "" ? [] : queryPieces.split("&");
  const { sent, pathValues } = writeParameters(op, r, values, headers, pieces);

  const credentials = r.credentials ?? "valid";
  const applied = credentialsFor(op, credentials, secrets);
  Object.assign(headers, applied.headers);
  for (const [name, value] of applied.query) pieces.push(new URLSearchParams({ [name]: value }).toString());
  if (applied.cookies.length > 0) {
    const pairs = applied.cookies.map(([name, value]) => `${name}=${value}`).join("; ");
    headers.cookie = headers.cookie === undefined ? pairs : `${headers.cookie}; ${pairs}`;
  }

  const path = fillPath(op, r, pathValues, sent);
  checkFieldValues(headers);
  return {
    method: op.method.toUpperCase(),
    path: path + buildQueryString(pieces),
    pathOnly: path,
    present: presentParameters(op, pieces, headers),
    headers,
    body,
    parameters: sent,
    credentials: op.authRequired ? credentials : undefined,
    schemes: applied.schemes,
    ...(fallbacks.length > 0 ? { fallbacks } : {}),
  };
}

/** `$fresh` values kept per case in `fresh`; `$from` values from earlier steps, noting the fallbacks used. */
function valueSources(
  fresh: Map<string, bigint | string>,
  random: Random,
  earlier: readonly EarlierExchange[],
  stepIndex: number,
  fallbacks: string[],
): ValueSources {
  return {
    freshOf: (name, kind) => {
      if (!(FRESH_KINDS as readonly string[]).includes(kind))
        throw new Error(`unknown fresh kind "${kind}" (kinds: ${FRESH_KINDS.join(", ")})`);
      let v = fresh.get(name);
      if (v === undefined) {
        v = freshValue(kind as FreshKind, random);
        fresh.set(name, v);
      }
      return v;
    },
    fromOf: (expression, from, otherwise) => {
      try {
        return valueFrom(earlier, stepIndex, expression, from);
      } catch (error) {
        if (otherwise === undefined || !(error instanceof NothingThere)) throw error;
        fallbacks.push(expression);
        return otherwise;
      }
    },
  };
}

/** The body's bytes: `body` as exact JSON, `rawBody` with its `{{fresh:NAME}}` filled in, or `rawBodyBase64`. */
function requestBody(r: FixtureRequest, values: ValueSources): Buffer | undefined {
  if (r.body !== undefined) return Buffer.from(stringifyExact(substituteValues(r.body, values)), "utf8");
  if (r.rawBody !== undefined) {
    return Buffer.from(
      r.rawBody.replace(/\{\{fresh:([A-Za-z0-9_-]+)(?::([a-z0-9-]+))?\}\}/g, (_m, name: string, kind?: string) =>
        String(values.freshOf(name, kind ?? "int64")),
      ),
      "utf8",
    );
  }
  if (r.rawBodyBase64 !== undefined) return Buffer.from(r.rawBodyBase64, "base64");
  return undefined;
}

/**
 * Writes the operation's parameters by their style, each value given by name (or `in:name`) and
 * resolved first: query pieces and headers (cookies joined onto any Cookie header) are added to those
 * given; path values are returned for fillPath, with every value sent by `in:name`.
 */
function writeParameters(
  op: CompiledOperation,
  r: FixtureRequest,
  values: ValueSources,
  headers: Record<string, string>,
  pieces: string[],
): { sent: Record<string, unknown>; pathValues: Record<string, string> } {
  const cookies: string[] = [];
  const sent: Record<string, unknown> = {};
  const pathValues: Record<string, string> = {};
  for (const p of op.parameters) {
    const given = r.parameters?.[`${p.in}:${p.name}`] ?? r.parameters?.[p.name];
    if (given === undefined) continue;
    const value = substituteValues(given, values);
    sent[`${p.in}:${p.name}`] = value;
    const style = styleOfCompiled(p);
    if (p.in === "path") pathValues[p.name] = serializePath(style, value);
    else if (p.in === "query") pieces.push(...serializeQuery(style, value));
    else if (p.in === "header") {
      const text = serializeHeader(style, value);
      if (text !== undefined) headers[p.name.toLowerCase()] = text;
    } else {
      const text = serializeCookie(style, value);
      if (text !== undefined) cookies.push(text);
    }
  }
  if (cookies.length > 0)
    headers.cookie = [headers.cookie, ...cookies].filter((c) => c !== undefined && c !== "").join("; ");
  return { sent, pathValues };
}

/** The path template filled: by the parameters written, else by `pathParams` (noted in `sent`). */
function fillPath(
  op: CompiledOperation,
  r: FixtureRequest,
  pathValues: Readonly<Record<string, string>>,
  sent: Record<string, unknown>,
): string {
  return op.pathTemplate.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const serialised = pathValues[name];
    if (serialised !== undefined) return serialised;
    const v = r.pathParams?.[name];
    if (v === undefined)
      throw new Error(`the path parameter ${name} of ${op.pathTemplate} needs a value (parameters or pathParams)`);
    sent[`path:${name}`] ??= v;
    return encodeURIComponent(v);
  });
}

/**
 * undici refuses to send a header with characters a field value cannot hold (control characters,
 * anything past latin1; RFC 9110 section 5.5): the fixture's mistake, not the target's.
 */
function checkFieldValues(headers: Readonly<Record<string, string>>): void {
  for (const name of Object.keys(headers)) {
    const value = headers[name] as string;
    if (UNSENDABLE.test(value))
      throw new Error(
        `the header ${name} cannot be sent: ${JSON.stringify(value)} holds a character HTTP does not carry`,
      );
  }
}

/** A character a header field value cannot carry (RFC 9110 section 5.5: VCHAR, obs-text, SP, HTAB). */
const UNSENDABLE = /[^\t\x20-\x7e\x80-\xff]/;

/** The operation's parameters a request carries: every path one, and the query, header and cookie ones it names. */
function presentParameters(
  op: CompiledOperation,
  pieces: readonly string[],
  headers: Record<string, string>,
): string[] {
  if (op.parameters.length === 0) return []; // the common case on the per-exchange path: nothing to look for
  const queryNames = new Set(
    pieces.map((p) => {
      const name = p.split("=")[0] ?? "";
      try {
        return decodeURIComponent(name).replace(/\[.*$/, "");
      } catch {
        return name;
      }
    }),
  );
  const cookieNames = new Set((headers.cookie ?? "").split(/;\s*/).map((c) => c.split("=")[0]?.trim() ?? ""));
  return op.parameters
    .filter((p) =>
      p.in === "path"
        ? true
        : p.in === "query"
          ? queryNames.has(p.name) ||
            (p.style === "form" && p.explode && pieces.length > 0 && p.shape.kind === "object")
          : p.in === "header"
            ? headers[p.name.toLowerCase()] !== undefined
            : cookieNames.has(p.name),
    )
    .map((p) => `${p.in}:${p.name}`);
}
