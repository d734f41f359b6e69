/** A parsed Content-Type: its essence (type/subtype, lower case) and parameters (RFC 9110 section 8.3.1). */
export interface MediaType {
  readonly essence: string;
  readonly parameters: Readonly<Record<string, string>>;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Parses a Content-Type header value; undefined when it is absent or not a media type. */
export function parseMediaType(header: string | undefined): MediaType | undefined {
  if (header === undefined) return undefined;
  const [head = "", ...rest] = header.split(";");
  const essence = head.trim().toLowerCase();
  const slash = essence.indexOf("/");
  if (slash <= 0 || !TOKEN.test(essence.slice(0, slash)) || !TOKEN.test(essence.slice(slash + 1))) return undefined;
  const parameters: Record<string, string> = Object.create(null);
  for (const part of rest) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (name !== "") parameters[name] = value;
  }
  return { essence, parameters };
}

/**
 * Picks the spec's media-type key that covers a Content-Type, the most specific first
 * (OAS 3.1 section 4.8.14: `text/plain` over `text/*` over a bare wildcard).
 */
export function matchMediaType<T>(keys: ReadonlyMap<string, T>, header: string | undefined): { key: string; value: T } | undefined {
  const parsed = parseMediaType(header);
  if (parsed === undefined) return undefined;
  const [type] = parsed.essence.split("/");
  for (const candidate of [parsed.essence, `${type}/*`, "*/*"]) {
    for (const [key, value] of keys) {
      if (parseMediaType(key)?.essence === candidate) return { key, value };
    }
  }
  return undefined;
}
