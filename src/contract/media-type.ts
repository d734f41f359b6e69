/** A parsed Content-Type: its essence (type/subtype, lower case) and parameters (RFC 9110 section 8.3.1). */
export interface MediaType {
  readonly essence: string;
  readonly parameters: Readonly<Record<string, string>>;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Parses a Content-Type header value; undefined when it is absent or not a media type. */
export function parseMediaType(header: string | undefined): MediaType | undefined {
  if (header === undefined) return undefined;
  const semicolon = header.indexOf(";");
  const essence = (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  const slash = essence.indexOf("/");
  if (slash <= 0 || !TOKEN.test(essence.slice(0, slash)) || !TOKEN.test(essence.slice(slash + 1))) return undefined;
  const parameters: Record<string, string> = Object.create(null);
  if (semicolon < 0) return { essence, parameters };
  // parameter = token "=" ( token / quoted-string ), separated by ";" (RFC 9110 section 5.6.6); a ";"
  // inside a quoted string belongs to the value.
  const text = header.slice(semicolon + 1);
  let i = 0;
  while (i < text.length) {
    while (i < text.length && (text[i] === ";" || text[i] === " " || text[i] === "\t")) i++;
    const eq = text.indexOf("=", i);
    if (eq < 0) break;
    const name = text.slice(i, eq).trim().toLowerCase();
    i = eq + 1;
    let value = "";
    if (text[i] === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === "\\" && i + 1 < text.length) i++;
        value += text[i];
        i++;
      }
      i++; // the closing quote
      while (i < text.length && text[i] !== ";") i++;
    } else {
      const end = text.indexOf(";", i);
      value = (end < 0 ? text.slice(i) : text.slice(i, end)).trim();
      i = end < 0 ? text.length : end;
    }
    if (name !== "" && TOKEN.test(name) && !(name in parameters)) parameters[name] = value;
  }
  return { essence, parameters };
}

/**
 * Picks the spec's media-type key that covers a Content-Type, the most specific first
 * (OAS 3.1 section 4.8.14: `text/plain` over `text/*` over a bare wildcard).
 */
export function matchMediaType<T>(
  keys: ReadonlyMap<string, T>,
  header: string | undefined,
): { key: string; value: T } | undefined {
  const parsed = parseMediaType(header);
  if (parsed === undefined) return undefined;
  const [type] = parsed.essence.split("/");
  // A bare `*` is no media range (RFC 9110 section 12.5.1); documents that write it mean `*/*` (Telnyx).
  const essence = (key: string): string | undefined => (key.trim() === "*" ? "*/*" : parseMediaType(key)?.essence);
  for (const candidate of [parsed.essence, `${type}/*`, "*/*"]) {
    for (const [key, value] of keys) {
      if (essence(key) === candidate) return { key, value };
    }
  }
  return undefined;
}

/**
 * matchMediaType over one set of keys, each Content-Type value matched once: clients and servers
 * send few distinct ones. Bounded, as a proxy judges whatever an upstream sends.
 */
export function mediaTypeLookup<T>(keys: ReadonlyMap<string, T>): (header: string | undefined) => T | undefined {
  const found = new Map<string | undefined, T | null>();
  // The last value asked for, compared first: a map's lookup hashes each request's new header text.
  let lastHeader: string | undefined;
  let lastHit: T | null = null;
  let asked = false;
  return (header) => {
    if (asked && header === lastHeader) return lastHit ?? undefined;
    let hit = found.get(header);
    if (hit === undefined) {
      hit = matchMediaType(keys, header)?.value ?? null;
      if (found.size >= 64) found.clear();
      found.set(header, hit);
    }
    asked = true;
    lastHeader = header;
    lastHit = hit;
    return hit ?? undefined;
  };
}
