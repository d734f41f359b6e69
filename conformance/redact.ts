import { escapeRegExp } from "../src/regexp.js";

/** Replaces every secret, in every spelling an output might carry it, with a mask. */
export type Redactor = (text: string) => string;

export const MASK = "[REDACTED]";

/**
 * The parts of base64 (and base64url) text that depend only on the secret's bytes, for each of the
 * three alignments the secret can have inside a longer encoded value (as in `Basic base64(user:token)`
 * or `base64("Bearer " + token)`).
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(3)]);
    const encoded = padded.toString("base64");
    // Characters 4 per 3 bytes: skip those that mix in the leading padding, stop before the trailing.
    const start = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    const core = encoded.slice(start, end);
    if (core.length >= 6) cores.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return cores;
}

/**
 * A redactor for the given secrets. Each secret is masked as written, in upper and lower case,
 * JSON-escaped, XML-escaped, URL- and form-encoded, hex-encoded, and base64/base64url-encoded at any
 * alignment, so that neither a report format nor a target that echoes a credential back can carry
 * it out. Secrets of any length are masked: a short token is still a secret.
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (s.length === 0) continue;
    for (const v of [s, s.toLowerCase(), s.toUpperCase()]) {
      forms.add(v);
      forms.add(JSON.stringify(v).slice(1, -1));
      forms.add(
        v
          .replace(/&/g, "&amp;")
          .replace(/</g, "&lt;")
          .replace(/>/g, "&gt;")
          .replace(/"/g, "&quot;")
          .replace(/'/g, "&apos;"),
      );
      forms.add(encodeURIComponent(v));
      forms.add(new URLSearchParams({ k: v }).toString().slice(2));
    }
    const hex = Buffer.from(s, "utf8").toString("hex");
    forms.add(hex);
    forms.add(hex.toUpperCase());
    forms.add(Buffer.from(s, "utf8").toString("base64"));
    for (const core of base64Cores(s)) forms.add(core);
  }
  const ordered = [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (t) => t;
  // One pass over each text: the longest form first wins where forms overlap.
  const pattern = new RegExp(ordered.map(escapeRegExp).join("|"), "g");
  return (text) =>
    pattern.test(text) ? ((pattern.lastIndex = 0), text.replace(pattern, MASK)) : ((pattern.lastIndex = 0), text);
}
