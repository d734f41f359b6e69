// Percent-encoding and decoding of parameter texts (RFC 3986), for parameter-serialize.ts and the
// parameter readers. Pure and browser-safe: no Node built-ins, no I/O.
//
// Decisions where the specification leaves room:
// - Values are percent-encoded per RFC 3986 in paths, queries and `form` cookies: everything but the
//   unreserved characters, with `!'()*` encoded too (RFC 6570 expansion; encodeURIComponent leaves them).
//   In the exploded label style `.` is encoded inside values, because it is the delimiter there.
//   `allowReserved` keeps RFC 3986 reserved characters and percent-encoded triples as they are, except
//   `#`, `[`, `]` (not allowed in a query) and `&`, `=`, `+` (form-urlencoded delimiters), as OAS 3.1.1
//   Appendix C asks.
// - Decoding reads `+` as a space in queries (form-urlencoded, as browsers do) and as itself elsewhere.

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789ABCDEF";

function charTable(chars: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return table;
}

/** RFC 3986 section 2.3 unreserved characters: never encoded. */
export const UNRESERVED = charTable(ALNUM + "-._~");
/** Unreserved but `.`, the exploded label style's delimiter. */
export const LABEL_ITEM = charTable(ALNUM + "-_~");
/** allowReserved: unreserved and the reserved characters a query can carry without changing its structure. */
export const RESERVED_KEPT = charTable(ALNUM + "-._~" + ":/?@!$'()*,;");

const utf8 = new TextEncoder();

function isHexByte(b: number | undefined): boolean {
  return b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));
}

/**
 * Percent-encodes the UTF-8 bytes of a text, keeping the ASCII characters of a table; with keepTriples,
 * an existing percent-encoded triple passes unchanged (RFC 6570 reserved expansion). A lone surrogate
 * is written as U+FFFD, as TextEncoder writes it.
 */
export function percentEncode(text: string, keep: Uint8Array, keepTriples = false): string {
  let plain = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || keep[c] !== 1) {
      plain = false;
      break;
    }
  }
  if (plain) return text;
  const bytes = utf8.encode(text);
  let out = "";
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b < 128 && keep[b] === 1) out += String.fromCharCode(b);
    else if (keepTriples && b === 0x25 && isHexByte(bytes[i + 1]) && isHexByte(bytes[i + 2])) {
      out += "%" + String.fromCharCode(bytes[i + 1] as number, bytes[i + 2] as number);
      i += 2;
    } else out += "%" + HEX[b >> 4] + HEX[b & 15];
  }
  return out;
}

/** Percent-encodes everything but the unreserved characters. */
export const encodeComponent = (text: string): string => percentEncode(text, UNRESERVED);

/** Percent-decodes (UTF-8); `+` is a space in form-urlencoded text. Undefined when malformed. */
export function percentDecode(raw: string, plusIsSpace: boolean): string | undefined {
  const text = plusIsSpace && raw.includes("+") ? raw.replaceAll("+", " ") : raw;
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
