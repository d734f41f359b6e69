import { resolvePointer } from "./json-pointer.js";
import type { Schema } from "./schema-view.js";
import { slashDelimited } from "./unsatisfiable.js";

/** Something in a schema that makes valid values rare or none, said as a linter would, with its pointer. */
export interface SchemaHint {
  readonly pointer: string;
  readonly message: string;
}

const DEEPEST = 12;

/**
 * What may keep a generator from finding a value a schema accepts, where unsatisfiable.ts cannot
 * prove that none exists: a oneOf whose object branches nothing tells apart (no branch has a required
 * property or `additionalProperties: false`, so an object meets several unless its values break the
 * others' schemas; oneOf wants exactly one), and a pattern written with /.../ delimiters (JSON Schema
 * patterns are ECMA-262 source, without them: the slashes must then be in the text). Said where a
 * run found nothing valid to send, so the document's author sees where to look.
 */
export function schemaHints(doc: unknown, pointer: string): SchemaHint[] {
  const hints: SchemaHint[] = [];
  walk(doc, resolvePointer(doc, pointer), pointer, hints, new Set(), 0);
  return hints;
}

function walk(doc: unknown, raw: unknown, here: string, hints: SchemaHint[], seen: Set<string>, depth: number): void {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw) || depth > DEEPEST) return;
  let node = raw as Schema;
  let at = here;
  if (typeof node.$ref === "string" && node.$ref.startsWith("#")) {
    at = decodeURIComponentSafe(node.$ref.slice(1));
    if (seen.has(at)) return;
    seen = new Set(seen).add(at);
    const target = resolvePointer(doc, at);
    if (typeof target !== "object" || target === null) return;
    node = target as Schema;
  }
  if (typeof node.pattern === "string" && slashDelimited(node.pattern) !== undefined)
    hints.push({
      pointer: `${at}/pattern`,
      message:
        `pattern ${JSON.stringify(node.pattern)} is written with /.../ delimiters: a JSON Schema pattern takes ` +
        `none (ECMA-262 source), so only text holding those slashes matches; write ${JSON.stringify(slashDelimited(node.pattern))}`,
    });
  if (Array.isArray(node.oneOf) && node.oneOf.length >= 2) {
    const branches = node.oneOf.map((b) => branchOf(doc, b));
    const objects = branches.filter((b) => b !== undefined && isObjectSchema(b));
    if (objects.length >= 2 && objects.every((b) => !tellsApart(doc, b!, 0)))
      hints.push({
        pointer: `${at}/oneOf`,
        message:
          "nothing tells the object branches of oneOf apart: none has a required property or additionalProperties: " +
          "false, so an object meets several of them unless its values break the others' schemas, and oneOf wants exactly one",
      });
  }
  for (const key of ["allOf", "oneOf", "anyOf"])
    if (Array.isArray(node[key]))
      (node[key] as unknown[]).forEach((b, i) => walk(doc, b, `${at}/${key}/${i}`, hints, seen, depth + 1));
  if (typeof node.properties === "object" && node.properties !== null)
    for (const [name, p] of Object.entries(node.properties as Schema))
      walk(doc, p, `${at}/properties/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`, hints, seen, depth + 1);
  if (typeof node.items === "object") walk(doc, node.items, `${at}/items`, hints, seen, depth + 1);
}

/** A branch, its top $ref followed. */
function branchOf(doc: unknown, raw: unknown): Schema | undefined {
  let node = raw;
  for (let hops = 0; hops < 8 && typeof node === "object" && node !== null; hops++) {
    const ref = (node as Schema).$ref;
    if (typeof ref !== "string" || !ref.startsWith("#")) break;
    node = resolvePointer(doc, decodeURIComponentSafe(ref.slice(1)));
  }
  return typeof node === "object" && node !== null && !Array.isArray(node) ? (node as Schema) : undefined;
}

const isObjectSchema = (s: Schema): boolean =>
  s.type === "object" || (s.type === undefined && (s.properties !== undefined || s.allOf !== undefined));

/** A branch that refuses objects other branches accept by their shape: required properties, or closed. */
function tellsApart(doc: unknown, s: Schema, depth: number): boolean {
  if ((Array.isArray(s.required) && s.required.length > 0) || s.additionalProperties === false) return true;
  if (s.unevaluatedProperties === false) return true;
  if (!Array.isArray(s.allOf) || depth > 8) return false;
  return s.allOf.some((p) => {
    const part = branchOf(doc, p);
    return part !== undefined && tellsApart(doc, part, depth + 1);
  });
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
