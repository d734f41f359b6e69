// The values a fixture computes instead of writing them: `{"$fresh": NAME}` (one made-up value per
// name and case) and `{"$from": EXPRESSION, "step": N}` (an OpenAPI runtime expression read from an
// earlier step's request or answer), substituted anywhere in a body or a parameter value.
import { parseJsonExact, resolvePointer } from "../contract/index.js";
import type { EarlierExchange } from "./case-types.js";

/** Thrown while a value from an earlier step's answer is asked for before that answer exists. */
export class NotYetKnown extends Error {}

/** Thrown when an earlier answer exists but holds nothing where a `$from` expression points. */
export class NothingThere extends Error {}

/**
 * The value an OpenAPI runtime expression names in an earlier step (default: the one before):
 * `$request.body#/p`, `$request.path.n`, `$request.query.n`, `$request.header.n`,
 * `$response.body#/p`, `$response.header.n`, `$statusCode`. Integers beyond 2^53 come exactly (bigint).
 */
export function valueFrom(
  earlier: readonly EarlierExchange[],
  stepIndex: number,
  expression: string,
  from: number | undefined,
): unknown {
  const n = from ?? stepIndex - 1;
  if (!Number.isInteger(n) || n < 0 || n >= stepIndex)
    throw new Error(`$from ${JSON.stringify(expression)}: step ${n} is not an earlier step`);
  const exchange = earlier[n];
  if (exchange === undefined) throw new NotYetKnown(expression);
  const fromJson = (bytes: Uint8Array | undefined, pointer: string): unknown => {
    const parsed = parseJsonExact(Buffer.from(bytes ?? new Uint8Array()).toString("utf8"));
    if (!parsed.ok) throw new NothingThere(`${expression}: the body of step ${n} is not JSON`);
    const exact = parsed.exact.get(pointer);
    const value = exact?.integer ?? resolvePointer(parsed.value, pointer);
    if (value === undefined) throw new NothingThere(`${expression}: step ${n}'s body has nothing at ${pointer}`);
    return value;
  };
  const m = /^\$(request|response)\.(body|path|query|header)(?:#(.*)|\.(.+))?$/.exec(expression);
  if (expression === "$statusCode") {
    if (exchange.response === undefined) throw new NotYetKnown(expression);
    return exchange.response.status;
  }
  if (m === null) throw new Error(`$from ${JSON.stringify(expression)} is not a runtime expression this kit reads`);
  const [, side, part, pointer, name] = m;
  if (side === "response" && exchange.response === undefined) throw new NotYetKnown(expression);
  if (part === "body")
    return fromJson(side === "request" ? exchange.request.body : exchange.response!.body, pointer ?? "");
  if (name === undefined) throw new Error(`$from ${JSON.stringify(expression)} names no field`);
  const found =
    part === "header"
      ? (side === "request" ? exchange.request.headers : exchange.response!.headers)[name.toLowerCase()]
      : side === "request"
        ? exchange.request.parameters[`${part}:${name}`]
        : undefined;
  if (found === undefined) throw new NothingThere(`${expression}: step ${n} has no ${part} ${name}`);
  return found;
}

/** Where substituteValues finds `$fresh` and `$from` values. */
export interface ValueSources {
  readonly freshOf: (name: string, kind: string) => bigint | string;
  readonly fromOf: (expression: string, from: number | undefined, otherwise: unknown) => unknown;
}
/** A fixture value with every `$fresh` and `$from` object replaced by the value it names. */
export function substituteValues(value: unknown, sources: ValueSources): unknown {
  if (Array.isArray(value)) return value.map((v) => substituteValues(v, sources));
  if (typeof value !== "object" || value === null) return value;
  const o = value as Record<string, unknown>;
  if (typeof o.$fresh === "string" && onlyKeys(o, FRESH_KEYS))
    return sources.freshOf(o.$fresh, typeof o.kind === "string" ? o.kind : "int64");
  if (typeof o.$from === "string" && onlyKeys(o, FROM_KEYS))
    return sources.fromOf(o.$from, typeof o.step === "number" ? o.step : undefined, o.otherwise);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) {
    const v = substituteValues(o[k], sources);
    // defineProperty, so that a "__proto__" key in a fixture stays plain data.
    if (k === "__proto__")
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}

const FRESH_KEYS: ReadonlySet<string> = new Set(["$fresh", "kind"]);
const FROM_KEYS: ReadonlySet<string> = new Set(["$from", "step", "otherwise"]);

/** Whether every own key of an object is one of `keys`. */
function onlyKeys(o: object, keys: ReadonlySet<string>): boolean {
  for (const k of Object.keys(o)) if (!keys.has(k)) return false;
  return true;
}
