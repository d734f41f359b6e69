/** Replaces every secret, in every spelling an output might carry it, with a mask. */
export type Redactor = (text: string) => string;

export const MASK = "[REDACTED]";

/**
 * A redactor for the given secrets. Each secret is masked as written, JSON-escaped, XML-escaped,
 * URL-encoded and base64-encoded (as in a Basic credential), so that neither a report format nor a
 * target that echoes a header back can carry it out.
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (s.length < 4) continue; // masking a two-letter "token" would shred every report
    forms.add(s);
    forms.add(JSON.stringify(s).slice(1, -1));
    forms.add(s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;"));
    forms.add(encodeURIComponent(s));
    forms.add(Buffer.from(s, "utf8").toString("base64"));
  }
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (t) => t;
  return (text) => {
    let out = text;
    for (const f of ordered) if (out.includes(f)) out = out.split(f).join(MASK);
    return out;
  };
}
