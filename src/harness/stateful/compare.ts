// How the stateful checks compare a value written with the value read back: numbers by their exact
// value (an int64 beyond 2^53 is a bigint, never a rounded double), everything else leniently where a
// server may legitimately write a value another way (a string trimmed or in another case, a timestamp
// in another zone, an array in another order, an empty value left out, properties added). A
// difference is only ever a value that is another value, so no legitimate choice is called a loss.
import { ExactLiteral, unescapePointer } from "../../contract/index.js";

/** The value at a JSON pointer of an exact value; undefined when nothing is there. */
export function at(value: unknown, pointer: string): unknown {
  if (pointer === "") return value;
  let node = value;
  for (const raw of pointer.slice(1).split("/")) {
    const key = unescapePointer(raw);
    if (typeof node !== "object" || node === null || !Object.prototype.hasOwnProperty.call(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

const isNumeric = (v: unknown): v is number | bigint | ExactLiteral =>
  typeof v === "number" || typeof v === "bigint" || v instanceof ExactLiteral;

/** A number's exact value as normalised decimal text: sign, digits without padding zeros, exponent. */
export function numericKey(v: number | bigint | ExactLiteral): string {
  if (typeof v === "bigint") return normalise(v.toString());
  if (typeof v === "number") return Number.isInteger(v) ? normalise(BigInt(v).toString()) : normalise(String(v));
  return normalise(v.literal);
}

function normalise(literal: string): string {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (m === null) return literal;
  const [, sign, whole = "", fraction = "", exponent = "0"] = m;
  let digits = (whole + fraction).replace(/^0+/, "");
  let exp = Number(exponent) - fraction.length;
  if (digits === "") return "0";
  while (digits.endsWith("0")) {
    digits = digits.slice(0, -1);
    exp++;
  }
  return `${sign}${digits}e${exp}`;
}

/** Whether two numbers are the same number: exactly, or (plain doubles that are no integers) as float32 too. */
function sameNumber(a: number | bigint | ExactLiteral, b: number | bigint | ExactLiteral): boolean {
  if (numericKey(a) === numericKey(b)) return true;
  // `format: float`: a server that keeps a float32 reads 0.1 back as 0.10000000149011612.
  return (
    typeof a === "number" &&
    typeof b === "number" &&
    !(Number.isInteger(a) && Number.isInteger(b)) &&
    Math.fround(a) === Math.fround(b)
  );
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;

/** Text as a server may keep it: Unicode NFC, trimmed, inner white space as one space, lower case. */
const looseText = (s: string): string => s.normalize("NFC").trim().replace(/\s+/g, " ").toLowerCase();

function sameText(a: string, b: string): boolean {
  if (a === b || looseText(a) === looseText(b)) return true;
  // The same instant written in another zone or precision (2024-01-01T00:00:00Z, ...T01:00:00+01:00).
  if (ISO_DATE.test(a) && ISO_DATE.test(b)) {
    const [x, y] = [Date.parse(a), Date.parse(b)];
    return !Number.isNaN(x) && x === y;
  }
  return false;
}

/** A value a server may leave out of an answer instead of writing it: null, "", false, 0, [] or {}. */
export function isEmptyValue(v: unknown): boolean {
  if (v === null || v === "" || v === false || v === 0 || v === 0n) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === "object" && !(v instanceof ExactLiteral) && Object.keys(v as object).length === 0;
}

/**
 * Whether `read` is the value `written`, as a server may keep it: numbers exactly (float32 allowed
 * for non-integers), text leniently, arrays as sets, objects by the properties both show (a server
 * may drop what its schema does not name, and add its own). A null written clears a value (JSON
 * merge patch, RFC 7396 section 2): whatever the server shows then, a default included, is kept.
 */
export function sameValue(written: unknown, read: unknown): boolean {
  if (written === null) return true;
  if (isNumeric(written) || isNumeric(read)) {
    if (isNumeric(written) && isNumeric(read)) return sameNumber(written, read);
    // A number written as text, or text as a number: the same when the digits are.
    const [n, s] = isNumeric(written) ? [written, read] : [read as number, written];
    return typeof s === "string" && /^-?\d/.test(s) && numericKey(n) === normalise(s.trim());
  }
  if (typeof written === "string" && typeof read === "string") return sameText(written, read);
  if (Array.isArray(written) && Array.isArray(read))
    return (
      written.every((w) => read.some((r) => sameValue(w, r))) && read.every((r) => written.some((w) => sameValue(w, r)))
    );
  if (isObject(written) && isObject(read))
    return Object.entries(written).every(
      ([k, w]) => !Object.prototype.hasOwnProperty.call(read, k) || sameValue(w, read[k]),
    );
  return written === read;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof ExactLiteral);

/** How an id read back compares with the id the item was made with. */
export type IdComparison = "same" | "written-otherwise" | "different";

/**
 * Ids exactly: integers by value (never through a double), text as written; text that differs only
 * in case or Unicode form is "written-otherwise" (a server may keep a key normalised), never a loss.
 */
export function compareIds(made: unknown, read: unknown): IdComparison {
  if (isNumeric(made) || isNumeric(read)) return sameValue(made, read) ? "same" : "different";
  if (typeof made === "string" && typeof read === "string") {
    if (made === read) return "same";
    return looseText(made) === looseText(read) ? "written-otherwise" : "different";
  }
  return made === read ? "same" : "different";
}

/** A value as evidence: exact JSON (bigints as their digits), cut to `max` characters. */
export function shown(value: unknown, max = 120): string {
  // Exact numbers are marked while JSON.stringify writes them, then unquoted: 9007199254740993, not "...".
  const mark = "\u0000";
  const text =
    value === undefined
      ? "(absent)"
      : JSON.stringify(value, (_k, v: unknown) =>
          typeof v === "bigint" ? `${mark}${v}${mark}` : v instanceof ExactLiteral ? `${mark}${v.literal}${mark}` : v,
        ).replace(/"\\u0000([^"\\]*)\\u0000"/g, "$1");
  return text.length > max ? `${text.slice(0, max)}...` : text;
}
