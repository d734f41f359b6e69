// Canonical JSON, the form certificates are hashed and signed over: written in the manner of RFC 8785
// (JCS), read back with every number exact, and the members a text gives twice found, so that a reader
// cannot be shown one value and a verifier another.
import { createHash } from "node:crypto";
import { escapePointer, ExactLiteral, exactTree, parseJsonExact } from "../../contract/index.js";

/**
 * Canonical JSON text, in the manner of RFC 8785 (JCS): object keys sorted by UTF-16 code units, no
 * white space, strings as JSON.stringify writes them, numbers as ECMAScript writes a double (the
 * shortest text that reads back to it; -0 as 0). Beyond RFC 8785, which knows only doubles: a
 * bigint is written as its exact integer digits, and an ExactLiteral as its exact decimal
 * (`[-]DIGITSeEXPONENT`, so 1.50 and 15e-1 are one text), so an integer
 * beyond 2^53 keeps every digit. Throws a TypeError, with the JSON pointer, for values JSON does not
 * have (NaN, Infinity, functions, class instances other than ExactLiteral).
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  // Iterative, so that a deeply nested document cannot overflow the stack.
  const work: ({ kind: "value"; value: unknown; pointer: string } | { kind: "text"; text: string })[] = [
    { kind: "value", value, pointer: "" },
  ];
  while (work.length > 0) {
    const item = work.pop()!;
    if (item.kind === "text") {
      parts.push(item.text);
      continue;
    }
    const { value: v, pointer } = item;
    if (v === null || typeof v === "boolean") parts.push(String(v));
    else if (typeof v === "string") parts.push(JSON.stringify(v));
    else if (typeof v === "bigint") parts.push(v.toString());
    else if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new TypeError(`${pointer || "/"}: ${v} is not a JSON number`);
      parts.push(JSON.stringify(v));
    } else if (v instanceof ExactLiteral) parts.push(exactDecimalText(v.literal));
    else if (Array.isArray(v)) {
      const next: typeof work = [{ kind: "text", text: "[" }];
      v.forEach((e, i) => {
        if (i > 0) next.push({ kind: "text", text: "," });
        // As JSON.stringify: a hole or undefined in an array is null.
        next.push({ kind: "value", value: e === undefined ? null : e, pointer: `${pointer}/${i}` });
      });
      next.push({ kind: "text", text: "]" });
      work.push(...next.reverse());
    } else if (
      typeof v === "object" &&
      (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)
    ) {
      const record = v as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((k) => record[k] !== undefined)
        .sort();
      const next: typeof work = [{ kind: "text", text: "{" }];
      keys.forEach((k, i) => {
        next.push({ kind: "text", text: `${i > 0 ? "," : ""}${JSON.stringify(k)}:` });
        next.push({
          kind: "value",
          value: record[k],
          pointer: `${pointer}/${escapePointer(k)}`,
        });
      });
      next.push({ kind: "text", text: "}" });
      work.push(...next.reverse());
    } else
      throw new TypeError(`${pointer || "/"}: a ${typeof v === "object" ? "non-plain object" : typeof v} is not JSON`);
  }
  return parts.join("");
}

/**
 * Parses a JSON text with every number as the kit reads it (the contract's exact tree): integers
 * exactly (bigints beyond 2^53), other numbers as their double unless the double changes what they
 * are (1.00000000000000001 is not the integer 1: kept as an ExactLiteral).
 */
export function parseCanonicalInput(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const parsed = parseJsonExact(text);
  return parsed.ok ? { ok: true, value: exactTree(parsed.value, parsed.exact) } : parsed;
}

/** A JSON number literal's exact value as `[-]DIGITSeEXPONENT`, digits without leading or trailing zeros. */
export function exactDecimalText(literal: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (m === null) throw new TypeError(`not a JSON number: ${literal}`);
  const fraction = m[3] ?? "";
  let digits = (m[2]! + fraction).replace(/^0+/, "");
  let exponent = BigInt(m[4] ?? "0") - BigInt(fraction.length);
  if (digits === "") return "0";
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 0x30) end--;
  exponent += BigInt(digits.length - end);
  digits = digits.slice(0, end);
  return `${m[1]}${digits}e${exponent}`;
}

/** The sha256 of a text's UTF-8 bytes, in hex. */
export const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * The JSON pointers of object members a valid JSON text gives twice. JSON.parse keeps the last, other
 * readers the first: a certificate with a duplicate could show one verdict and be verified by another.
 */
export function duplicateKeys(text: string): string[] {
  const found: string[] = [];
  // Per open container: its keys (null for an array), its pointer, and the key being read.
  const stack: { keys: Set<string> | null; pointer: string; index: number; key: string }[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === "{" || c === "[") {
      const parent = stack.at(-1);
      const pointer =
        parent === undefined
          ? ""
          : `${parent.pointer}/${parent.keys === null ? parent.index : escapePointer(parent.key)}`;
      stack.push({ keys: c === "{" ? new Set() : null, pointer, index: 0, key: "" });
      i++;
    } else if (c === "}" || c === "]") {
      stack.pop();
      i++;
    } else if (c === ",") {
      const top = stack.at(-1);
      if (top !== undefined && top.keys === null) top.index++;
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const top = stack.at(-1);
      let k = j + 1;
      while (k < n && " \t\r\n".includes(text[k]!)) k++;
      if (top?.keys != null && text[k] === ":") {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) found.push(`${top.pointer}/${escapePointer(key)}`);
        top.keys.add(key);
        top.key = key;
      }
      i = j + 1;
    } else i++;
  }
  return found;
}
