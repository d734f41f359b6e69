// `$ref`s inside literal values: example data and schema values (`example`, `examples`, an Example
// Object's `value`, `default`, `enum`, `const`) are data as written (OAS 3.1 section 4.8.19, Example
// Object: "value: Embedded literal example"), not references. swagger-parser's resolver follows every
// `$ref` it meets, so an external one there (GitHub's ghec.json has three, to files never published)
// makes a valid document unreadable. Those `$ref` keys are renamed while the resolver runs, then back.

type Json = Record<string, unknown>;

const HIDDEN = "$ref\u0000literal";

/** Fields whose value is a map from names (chosen by the author) to objects. */
const NAME_MAPS = new Set([
  "paths",
  "webhooks",
  "callbacks",
  "schemas",
  "responses",
  "parameters",
  "requestBodies",
  "headers",
  "securitySchemes",
  "links",
  "pathItems",
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
  "encoding",
  "content",
  "variables",
  "scopes",
]);
/** Fields whose value is literal data wherever they are fields (not names in a map). */
const LITERAL = new Set(["example", "default", "enum", "const"]);

/** Renames the external `$ref`s inside literal values of a parsed document (in place); how many it renamed. */
export function hideLiteralRefs(document: unknown): number {
  let hidden = 0;
  const hide = (node: unknown): void => {
    const stack = [node];
    while (stack.length > 0) {
      const n = stack.pop();
      if (typeof n !== "object" || n === null) continue;
      const o = n as Json;
      if (typeof o.$ref === "string" && !o.$ref.startsWith("#")) {
        o[HIDDEN] = o.$ref;
        delete o.$ref;
        hidden++;
      }
      for (const v of Object.values(o)) stack.push(v);
    }
  };
  // `fields`: the node's keys are field names; otherwise they are names in a map (of objects).
  const walk = (node: unknown, fields: boolean, examples: boolean, depth: number): void => {
    if (typeof node !== "object" || node === null || depth > 256) return;
    if (Array.isArray(node)) {
      for (const v of node) walk(v, true, false, depth + 1);
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (!fields) walk(value, true, examples, depth + 1);
      else if (LITERAL.has(key) || (examples && key === "value")) hide(value);
      else if (key === "examples") {
        // A list in a 3.1 schema (JSON Schema's examples); elsewhere a map of Example Objects.
        if (Array.isArray(value)) hide(value);
        else walk(value, false, true, depth + 1);
      } else walk(value, !NAME_MAPS.has(key), false, depth + 1);
    }
  };
  walk(document, true, false, 0);
  return hidden;
}

/** Gives the renamed `$ref`s their name back. */
export function restoreLiteralRefs(document: unknown): void {
  const stack = [document];
  while (stack.length > 0) {
    const n = stack.pop();
    if (typeof n !== "object" || n === null) continue;
    const o = n as Json;
    if (Object.hasOwn(o, HIDDEN)) {
      // Among its siblings it comes last now: JSON objects are unordered (RFC 8259 section 4).
      o.$ref = o[HIDDEN];
      delete o[HIDDEN];
    }
    for (const v of Object.values(o)) stack.push(v);
  }
}
