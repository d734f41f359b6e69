// JSON Pointer (RFC 6901) in one place: spec pointers in findings, exact numbers by pointer, violation
// locations and the generator's look-ups all escape and unescape reference tokens the same way.

/** Escapes one reference token: `~` as `~0`, then `/` as `~1` (RFC 6901 section 3). */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Unescapes one reference token: `~1` first, then `~0`, so `~01` stays `~1` (RFC 6901 section 4). */
export function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Resolves a JSON pointer (RFC 6901) in a document; undefined when it leads nowhere. */
export function resolvePointer(doc: unknown, pointer: string): unknown {
  if (pointer === "") return doc;
  let current: unknown = doc;
  for (const raw of pointer.split("/").slice(1)) {
    const key = unescapePointer(raw);
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A `$ref`'s fragment percent-decoded; as written when it is no valid percent-encoding. */
export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
