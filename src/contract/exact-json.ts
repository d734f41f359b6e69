/**
 * Exact JSON parsing.
 *
 * JSON.parse on Node 20 turns every number into an IEEE double, so 9007199254740993 becomes
 * 9007199254740992 and 1.00000000000000001 becomes the integer 1. JSON Schema judges numbers by their
 * mathematical value (2020-12 core, section 4.2.2), so such losses would make a validator accept or
 * reject the wrong thing. This module keeps the fast path (plain JSON.parse) for texts whose numbers
 * are all short, and otherwise finds the numbers a double cannot represent faithfully, records their
 * exact value by JSON pointer, and puts a stand-in double in the tree that keeps the verdicts of
 * `type: integer` and the int32/int64 formats (see standInFor).
 */
import { INT64_MAX, INT64_MIN, TWO_53 } from "./integer-bounds.js";
import { escapePointer, unescapePointer } from "./json-pointer.js";

/** The exact value of a JSON number whose double is not faithful. */
export interface ExactNumber {
  /** The number as written in the text. */
  readonly literal: string;
  /** True when the number's mathematical value is an integer (1.0 and 1e2 are integers). */
  readonly isInteger: boolean;
  /** The integer's exact value, when it is an integer of at most 40 digits; undefined otherwise. */
  readonly integer: bigint | undefined;
}

/** The exact numbers of a parsed text, found by JSON pointer (RFC 6901). */
export interface ExactNumbers {
  /** The exact value at a pointer, when the double there is a stand-in. Costs the pointer's length. */
  get(pointer: string): ExactNumber | undefined;
  readonly size: number;
  /** Every pointer with an exact value; costs depth times count, so for trusted texts only. */
  pointers(): string[];
}

export type ParseResult =
  | { readonly ok: true; readonly value: unknown; readonly exact: ExactNumbers }
  | { readonly ok: false; readonly message: string };

/** The exact numbers of a text that has none: every number in it is its double. */
export const NO_EXACT: ExactNumbers = { get: () => undefined, size: 0, pointers: () => [] };

/**
 * Whether a text may hold a number its double does not keep: a run of 16 digits or dots, or a digit
 * followed by an exponent's `e` (the meaning of `/[\d.]{16}|\d[eE]/`). Texts without either hold only
 * faithful numbers. One pass: the regular expression tries its run at every digit of a run, so a
 * body with a 13-digit id cost 0.23 µs with it and 0.09 with this (docs/performance.md).
 */
export function maybeUnfaithful(text: string): boolean {
  let run = 0;
  let digit = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (++run >= 16) return true;
      digit = true;
    } else if (c === 0x2e) {
      if (++run >= 16) return true;
      digit = false;
    } else {
      if (digit && (c === 0x65 || c === 0x45)) return true;
      run = 0;
      digit = false;
    }
  }
  return false;
}
const JSON_NUMBER = /^-?(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** 2^63, the first integer above int64, is a double exactly. */
const TWO_63_DOUBLE = -Number(INT64_MIN);
/** The largest double below 2^63 and the next double below -2^63. */
const BELOW_TWO_63 = 9223372036854774784;
const BELOW_MINUS_TWO_63 = -9223372036854777856;
const TWO_53_DOUBLE = Number(TWO_53);
const NON_INTEGER_FALLBACK = 2 ** 52 - 0.5;

/** Parses JSON text exactly; a syntax error is a result, never an exception. */
export function parseJsonExact(text: string): ParseResult {
  try {
    if (!maybeUnfaithful(text)) return { ok: true, value: JSON.parse(text), exact: NO_EXACT };
    return parseSlow(text);
  } catch (error) {
    return { ok: false, message: syntaxMessage(error) };
  }
}

function syntaxMessage(error: unknown): string {
  if (error instanceof RangeError) return "JSON nesting is too deep to parse";
  if (error instanceof Error) return error.message;
  return String(error);
}

interface Replacement {
  readonly start: number;
  readonly end: number;
  readonly exact: ExactNumber;
  readonly standIn: number;
}

function parseSlow(text: string): ParseResult {
  const replacements = findUnfaithfulNumbers(text);
  if (replacements.length === 0) return { ok: true, value: JSON.parse(text), exact: NO_EXACT };

  let nonce = randomHex(12);
  while (text.includes(nonce)) nonce = randomHex(12);
  const parts: string[] = [];
  let last = 0;
  replacements.forEach((r, i) => {
    parts.push(text.slice(last, r.start), `"${nonce}${i}"`);
    last = r.end;
  });
  parts.push(text.slice(last));
  let value: unknown;
  try {
    value = JSON.parse(parts.join(""));
  } catch {
    // Only numbers in value position are rewritten, so the text is invalid as written too; parsing
    // it again gives the error with positions in the text the sender wrote.
    JSON.parse(text);
    throw new SyntaxError("invalid JSON");
  }
  return restoreMarkers(value, nonce, replacements);
}

/** Random hex from Web Crypto, which Node 20+ and browsers share (no node:crypto on the browser path). */
function randomHex(bytes: number): string {
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes)), (b) =>
    b.toString(16).padStart(2, "0"),
  ).join("");
}

/** Lexes the text outside strings and returns the number tokens whose double is not faithful. */
function findUnfaithfulNumbers(text: string): Replacement[] {
  const found: Replacement[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
      i++;
      continue;
    }
    if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      while (i < n && isNumberChar(text.charCodeAt(i))) i++;
      // A number where a key belongs is invalid JSON; left as it is, JSON.parse rejects it (a string
      // in its place would be a valid key).
      let next = i;
      while (next < n && isJsonSpace(text.charCodeAt(next))) next++;
      if (text.charCodeAt(next) === 0x3a /* : */) continue;
      const analysed = analyseNumber(text.slice(start, i));
      if (analysed !== undefined) found.push({ start, end: i, ...analysed });
      continue;
    }
    i++;
  }
  return found;
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

/**
 * Decides whether a number literal's double is faithful; when it is not, returns its exact value
 * and the stand-in double. Malformed literals are left for JSON.parse to reject.
 */
export function analyseNumber(literal: string): { exact: ExactNumber; standIn: number } | undefined {
  const m = JSON_NUMBER.exec(literal);
  if (m === null) return undefined;
  const negative = literal.startsWith("-");
  const intDigits = m[1] ?? "0";
  const fracDigits = m[2] ?? "";
  const expText = m[3];
  if (expText === undefined && intDigits.length + fracDigits.length <= 15) return undefined;

  const double = Number(literal);
  const digits = intDigits + fracDigits;
  // Plain loops: a regular expression such as /0+$/ takes quadratic time on a long run of zeros.
  let first = 0;
  while (first < digits.length && digits.charCodeAt(first) === 0x30) first++;
  if (first === digits.length) return undefined; // zero, which every double spelling of it keeps
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 0x30) end--;
  const trailingZeros = digits.length - end;
  const mantissa = digits.slice(first, end);
  let exponent = (expText === undefined ? 0 : Number(expText)) - fracDigits.length;
  exponent += trailingZeros;
  const isInteger = exponent >= 0;
  const digitCount = mantissa.length + exponent;

  if (isInteger) {
    const integer = digitCount <= 40 ? BigInt(mantissa) * 10n ** BigInt(exponent) * (negative ? -1n : 1n) : undefined;
    if (integer !== undefined && Math.abs(double) <= TWO_53_DOUBLE && BigInt(double) === integer) return undefined;
    return { exact: { literal, isInteger, integer }, standIn: integerStandIn(integer, negative, double) };
  }
  if (Number.isFinite(double) && !Number.isInteger(double) && double !== 0) return undefined;
  return { exact: { literal, isInteger, integer: undefined }, standIn: nonIntegerStandIn(double, negative) };
}

/**
 * An integer double on the same side of the int64 bounds as the exact value, so that the int64
 * format check (-2^63 <= d < 2^63 on doubles) gives the exact verdict, and as close to the value as
 * that allows.
 */
function integerStandIn(integer: bigint | undefined, negative: boolean, double: number): number {
  const inInt64 = integer !== undefined && integer >= INT64_MIN && integer <= INT64_MAX;
  if (inInt64) return Math.min(double, BELOW_TWO_63);
  if (negative) return Number.isFinite(double) ? Math.min(double, BELOW_MINUS_TWO_63) : -Number.MAX_VALUE;
  return Number.isFinite(double) ? Math.max(double, TWO_63_DOUBLE) : Number.MAX_VALUE;
}

/** The nearest non-integer double, so that `type: integer` rejects it as it rejects the literal. */
function nonIntegerStandIn(double: number, negative: boolean): number {
  const sign = negative ? -1 : 1;
  if (!Number.isFinite(double) || Math.abs(double) >= 2 ** 52) return sign * NON_INTEGER_FALLBACK;
  if (double === 0) return sign * Number.MIN_VALUE;
  return nextAwayFromZero(double);
}

function nextAwayFromZero(x: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + 1n);
  return view.getFloat64(0);
}

interface Frame {
  readonly container: Record<string, unknown> | unknown[];
  readonly parent: Frame | undefined;
  readonly key: string;
}

/**
 * Puts the stand-ins in place of the markers and records each exact value by its container and key,
 * so that a lookup costs the pointer's length, never the depth times the count of numbers.
 */
function restoreMarkers(root: unknown, nonce: string, replacements: Replacement[]): ParseResult {
  const marker = (v: unknown): Replacement | undefined =>
    typeof v === "string" && v.startsWith(nonce) ? replacements[Number(v.slice(nonce.length))] : undefined;
  const byContainer = new Map<object, Map<string, ExactNumber>>();
  const records: { frame: Frame; key: string }[] = [];
  let rootExact: ExactNumber | undefined;
  const top = marker(root);
  let value = root;
  if (top !== undefined) {
    rootExact = top.exact;
    value = top.standIn;
  } else if (typeof root === "object" && root !== null) {
    // Iterative, so that deeply nested texts cannot overflow the stack.
    const stack: Frame[] = [{ container: root as Record<string, unknown>, parent: undefined, key: "" }];
    while (stack.length > 0) {
      const frame = stack.pop() as Frame;
      const container = frame.container as Record<string, unknown>;
      for (const key of Object.keys(container)) {
        const child = container[key];
        const r = marker(child);
        if (r !== undefined) {
          // An own data property: assignment never reaches a __proto__ setter here.
          container[key] = r.standIn;
          let m = byContainer.get(container);
          if (m === undefined) byContainer.set(container, (m = new Map()));
          m.set(key, r.exact);
          records.push({ frame, key });
        } else if (typeof child === "object" && child !== null) {
          stack.push({ container: child as Record<string, unknown>, parent: frame, key });
        }
      }
    }
  }
  const exact: ExactNumbers = {
    size: replacements.length,
    get(pointer) {
      if (pointer === "") return rootExact;
      const keys = pointer.split("/").slice(1).map(unescapePointer);
      let container: unknown = value;
      for (let i = 0; i < keys.length - 1; i++) {
        if (typeof container !== "object" || container === null || !Object.hasOwn(container, keys[i] as string))
          return undefined;
        container = (container as Record<string, unknown>)[keys[i] as string];
      }
      return typeof container === "object" && container !== null
        ? byContainer.get(container)?.get(keys.at(-1) as string)
        : undefined;
    },
    pointers() {
      return rootExact !== undefined ? [""] : records.map(({ frame, key }) => pointerOf(frame, key));
    },
  };
  return { ok: true, value, exact };
}

function pointerOf(frame: Frame, key: string): string {
  const keys = [key];
  for (let f: Frame | undefined = frame; f !== undefined && f.parent !== undefined; f = f.parent) keys.push(f.key);
  return keys
    .reverse()
    .map((k) => "/" + escapePointer(k))
    .join("");
}

/** The canonical decimal text of an integer read from JSON, exact beyond 2^53. */
export function canonicalInteger(value: unknown, exactNumber: ExactNumber | undefined): string | undefined {
  if (exactNumber !== undefined) return exactNumber.integer?.toString();
  if (typeof value === "number" && Number.isInteger(value)) return String(value === 0 ? 0 : value);
  return undefined;
}

/**
 * JSON text of a value that may hold bigints (written as exact integer literals, not strings): the
 * way back from an exact value to the text. For trusted values (fixture and generated bodies), so a
 * plain recursive walk does, without markers to collide.
 */
export function stringifyExact(value: unknown): string {
  if (typeof value === "bigint") return value.toString();
  const absent = (v: unknown): boolean => v === undefined || typeof v === "function";
  // Written by appending, not by arrays and joins: every request body of the harness comes through here.
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      out += `${i === 0 ? "" : ","}${absent(v) ? "null" : stringifyExact(v)}`;
    }
    return `${out}]`;
  }
  if (typeof value === "object" && value !== null) {
    let out = "{";
    let first = true;
    for (const k of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[k];
      if (absent(v)) continue;
      out += `${first ? "" : ","}${JSON.stringify(k)}:${stringifyExact(v)}`;
      first = false;
    }
    return `${out}}`;
  }
  return JSON.stringify(value);
}
