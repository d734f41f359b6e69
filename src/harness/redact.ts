import { escapeRegExp } from "../regexp.js";

export const MASK = "[REDACTED]";

/**
 * Secrets of this many characters or more are masked wherever one of their spellings appears: text
 * that long matches a secret by chance almost never. A shorter one (`valid`, `plant`, `x`) is masked
 * only where it stands as a whole token, since its letters are common inside other words.
 */
export const WHOLE_TOKEN_BELOW = 8;

/**
 * Masks secrets in the text of an exchange. Called as a function, for evidence (a URL, a header
 * value, a body, a transport failure's detail, what the target or the request said): every spelling
 * of every secret of 8 characters or more anywhere, and every spelling of a shorter one where it
 * stands as a whole token (no letter or digit right before or after it). The harness's own words
 * (fixture ids, check ids, paths, variable names) are never passed to it.
 */
export interface Redactor {
  (text: string): string;
  /**
   * For the harness's own sentences that quote evidence (a finding's message, expected and received;
   * a case's error), whose quoted parts were masked where they were quoted: the secrets of 8
   * characters or more again, in every spelling, as a net; never a shorter one, which would mask the
   * harness's own words ("a valid request got 500" stays whole for --token valid).
   */
  readonly prose: (text: string) => string;
}

const identity = (t: string): string => t;
/** A redactor for no secrets: text passes unchanged. */
export const NO_REDACTION: Redactor = Object.assign((t: string) => t, { prose: identity });

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
 * The spellings an output might carry a secret in: as written, in upper and lower case, JSON-escaped,
 * XML-escaped, URL- and form-encoded, hex-encoded, and base64/base64url-encoded (for a long secret
 * also at any alignment inside a longer encoded value).
 */
function spellings(s: string, long: boolean): string[] {
  const forms = new Set<string>();
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
  const bytes = Buffer.from(s, "utf8");
  const hex = bytes.toString("hex");
  forms.add(hex);
  forms.add(hex.toUpperCase());
  forms.add(bytes.toString("base64"));
  forms.add(bytes.toString("base64url"));
  if (long) for (const core of base64Cores(s)) forms.add(core);
  forms.delete("");
  return [...forms];
}

/**
 * A regular expression's source for where `text` counts: anywhere when `long`, else only as a whole
 * token (no letter or digit right before or after).
 */
export const occurrence = (text: string, long: boolean): string =>
  long ? escapeRegExp(text) : `(?<![A-Za-z0-9])${escapeRegExp(text)}(?![A-Za-z0-9])`;

/** One pass over a text; the longest form first wins where forms overlap. */
function masker(forms: ReadonlyMap<string, boolean>): (text: string) => string {
  if (forms.size === 0) return identity;
  const ordered = [...forms].sort((a, b) => b[0].length - a[0].length);
  const pattern = new RegExp(ordered.map(([f, long]) => occurrence(f, long)).join("|"), "g");
  return (text) => {
    pattern.lastIndex = 0;
    if (!pattern.test(text)) return text;
    pattern.lastIndex = 0;
    return text.replace(pattern, MASK);
  };
}

/**
 * A redactor for the given secrets (see Redactor): a secret of WHOLE_TOKEN_BELOW characters or more
 * in every spelling anywhere, a shorter one in every spelling as a whole token, so that neither a
 * report format nor a target that echoes a credential back (in a JSON string, a header, base64 of
 * `user:password`) can carry it out, and a short token does not eat the words around it.
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  // Each spelling, and whether it belongs to a long secret (a long secret's spelling wins a tie).
  const all = new Map<string, boolean>();
  for (const s of new Set(secrets)) {
    if (s.length === 0) continue;
    const long = [...s].length >= WHOLE_TOKEN_BELOW;
    for (const form of spellings(s, long)) all.set(form, long || all.get(form) === true);
  }
  const longOnly = new Map([...all].filter(([, long]) => long));
  return Object.assign(masker(all), { prose: masker(longOnly) });
}

/**
 * A request target (path and query) as evidence: each path segment and each query value masked,
 * except the contract's own words: the segments `template` (the operation's path template, when the
 * path has its shape) writes literally, and the query's parameter names (masked for long secrets
 * only). A short token that happens to be a path's word (`plants`) does not hide the path.
 */
export function maskRequestTarget(target: string, redact: Redactor, template?: string): string {
  // What the whole target does not hold, none of its parts holds (each is bounded by "/", "?", "&" or
  // "=", none a letter or digit): the target is shown as it is.
  if (redact(target) === target) return target;
  const q = target.indexOf("?");
  const path = q < 0 ? target : target.slice(0, q);
  const segments = path.split("/");
  const literal = template?.split("/");
  const shape = literal !== undefined && literal.length === segments.length;
  const shownPath = segments
    .map((s, i) => (shape && !literal[i]!.includes("{") && literal[i] === s ? s : redact(s)))
    .join("/");
  if (q < 0) return shownPath;
  const query = target
    .slice(q + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      return eq < 0 ? redact(pair) : `${redact.prose(pair.slice(0, eq))}=${redact(pair.slice(eq + 1))}`;
    })
    .join("&");
  return `${shownPath}?${query}`;
}
