// A parameter's scalar text as its schema's types read it (null, boolean, number, nested JSON, or the
// string), with integers beyond 2^53 kept as exact-json keeps them in bodies (a stand-in double plus an
// ExactNumbers entry by JSON pointer), so the same validators judge them. Pure and browser-safe.
import { NO_EXACT, analyseNumber, parseJsonExact, type ExactNumber, type ExactNumbers } from "./exact-json.js";
import type { JsonType } from "./parameter-shape.js";

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Collects exact numbers by JSON pointer while a value is read. */
export class ExactCollector {
  private readonly map = new Map<string, ExactNumber>();
  set(pointer: string, exact: ExactNumber): void {
    this.map.set(pointer, exact);
  }
  merge(prefix: string, exact: ExactNumbers): void {
    for (const pointer of exact.pointers()) {
      const e = exact.get(pointer);
      if (e !== undefined) this.map.set(prefix + pointer, e);
    }
  }
  done(): ExactNumbers {
    if (this.map.size === 0) return NO_EXACT;
    const map = this.map;
    return { get: (pointer) => map.get(pointer), size: map.size, pointers: () => [...map.keys()] };
  }
}

/**
 * A scalar text as the schema's types read it: null (from an empty text, when null is allowed and a
 * string is not), a boolean ("true", "false"), a number (JSON number syntax, exact), a nested array or
 * object (JSON text), else the string itself. A number is preferred over a string only when it fits
 * the numeric type (an integer for `integer`), so `type: [integer, string]` keeps "1.5" a string.
 */
export function coerce(text: string, types: readonly JsonType[], pointer: string, exact: ExactCollector): unknown {
  if (types.length === 0) return text;
  const string = types.includes("string");
  if (text === "") return types.includes("null") && !string ? null : text;
  if (types.includes("boolean") && (text === "true" || text === "false")) return text === "true";
  const number = types.includes("number");
  if ((number || types.includes("integer")) && JSON_NUMBER.test(text)) {
    const analysed = analyseNumber(text);
    const isInteger = analysed !== undefined ? analysed.exact.isInteger : Number.isInteger(Number(text));
    if (!string || number || isInteger) {
      if (analysed === undefined) return Number(text);
      exact.set(pointer, analysed.exact);
      return analysed.standIn;
    }
  }
  const first = text.charCodeAt(0);
  if ((types.includes("array") && first === 0x5b) || (types.includes("object") && first === 0x7b)) {
    const parsed = parseJsonExact(text);
    if (parsed.ok) {
      exact.merge(pointer, parsed.exact);
      return parsed.value;
    }
  }
  return text;
}
