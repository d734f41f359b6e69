import { resolve } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { KitError } from "../errors.js";
import { compileContract, type Contract } from "./contract.js";
import { hideLiteralRefs, restoreLiteralRefs } from "./literal-refs.js";
import { openapiSchemaProblems } from "./openapi-schema.js";

// Node only (swagger-parser reads files and URLs; the schema check is loaded with createRequire).
// compileContract, in contract.ts, runs anywhere: browsers get the document already bundled.

type Json = Record<string, unknown>;

/**
 * Reads, validates and compiles an OpenAPI 3.0/3.1 document from a file path or URL: one file, or
 * split across files by relative `$ref`s to YAML, JSON and text (Markdown) files. Throws
 * PS_SPEC_UNREADABLE when a file cannot be read or parsed (the file and the parser's reason) and
 * PS_SPEC_INVALID when the document is not valid OpenAPI 3.0 or 3.1 (the JSON pointer of each problem
 * and its reason, checked against the OpenAPI Initiative's current JSON Schemas).
 */
export async function loadContract(source: string): Promise<Contract> {
  return compileContract(await readContractDocument(source), source);
}

/**
 * loadContract without the compiling: the document read, its external `$ref`s bundled into it (so it
 * has internal `$ref`s only, as compileContract takes it) and checked against the OpenAPI schema.
 */
export async function readContractDocument(source: string): Promise<Json> {
  let bundled: unknown;
  try {
    // Bundling crawls every $ref of the document (about 100 ms for 5,000 lines, twice that cold); a
    // document in one file, with internal $refs only, is already bundled as parsed.
    bundled = await resolver().parse(source);
    if (hasExternalRef(bundled)) {
      // External $refs in example data are data (literal-refs.ts): hidden from the resolver.
      hideLiteralRefs(bundled);
      if (hasExternalRef(bundled)) bundled = await resolver().bundle(source, bundled as never, {});
    }
  } catch (error) {
    throw unreadable(error, source);
  }
  if (bundled === null || typeof bundled !== "object" || Array.isArray(bundled)) {
    throw new KitError("PS_SPEC_INVALID", `${source}: / must be an object (a JSON or YAML mapping)`);
  }
  // What swagger-parser's validate() does for OpenAPI 3 (its "spec" checks cover Swagger 2.0 only):
  // dereference, circular $refs left in place, then check against the OpenAPI JSON Schema, with the
  // schema compiled at build time rather than on every load.
  let dereferenced: Json;
  try {
    // The source as base, so that a $ref to nothing is reported in the source's name.
    dereferenced = (await resolver().dereference(source, structuredClone(bundled) as never, {
      dereference: { circular: "ignore" },
    })) as unknown as Json;
  } catch (error) {
    const broken = brokenRef(error, source);
    throw new KitError("PS_SPEC_INVALID", `${source}: ${broken ?? firstLine(error)}`, { cause: error });
  }
  const problems = openapiSchemaProblems(dereferenced);
  if (problems.length > 0) throw new KitError("PS_SPEC_INVALID", `${source}: ${problems.join("; ")}`);
  restoreLiteralRefs(bundled);
  return bundled as Json;
}

function unreadable(error: unknown, source: string): KitError {
  const broken = brokenRef(error, source);
  if (broken !== undefined) return new KitError("PS_SPEC_INVALID", `${source}: ${broken}`, { cause: error });
  return new KitError("PS_SPEC_UNREADABLE", `${source}: ${firstLine(error)}`, { cause: error });
}

/** Whether any `$ref` leads out of the document (to another file or URL), not to a `#` pointer in it. */
function hasExternalRef(root: unknown): boolean {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object") continue;
    const ref = (node as Json).$ref;
    if (typeof ref === "string" && !ref.startsWith("#")) return true;
    for (const value of Object.values(node)) if (value !== null && typeof value === "object") stack.push(value);
  }
  return false;
}

// swagger-parser's own parse() checks the root document before any $ref is resolved, and refuses
// valid documents there: versions outside a fixed list (3.0.0-3.0.4, 3.1.0-3.1.2), and a 3.1
// document without `paths` or `webhooks` (3.1 allows one with `components` only); its reasons come
// without a pointer, as unreadable. The OpenAPI schema check above says all of that with the pointer,
// so the resolver parses as json-schema-ref-parser (the class swagger-parser extends) does.
const refParserParse = (Object.getPrototypeOf(SwaggerParser.prototype) as { parse?: unknown }).parse;

function resolver(): SwaggerParser {
  const parser = new SwaggerParser();
  if (typeof refParserParse !== "function") throw new Error("swagger-parser no longer extends $RefParser");
  Object.defineProperty(parser, "parse", { value: refParserParse });
  return parser;
}

/** A `$ref` whose file was read but has nothing at its pointer: where the `$ref` is, and what is missing. */
function brokenRef(error: unknown, source: string): string | undefined {
  const e = error as {
    code?: unknown;
    source?: unknown;
    parentPath?: unknown;
    targetRef?: unknown;
    targetToken?: unknown;
  };
  if (e === null || typeof e !== "object" || e.code !== "EMISSINGPOINTER") return undefined;
  const where =
    typeof e.parentPath === "string" && e.parentPath.startsWith("#") ? e.parentPath.slice(1) || "/" : "a $ref";
  const root = /^[a-z][a-z0-9+.-]*:/i.test(source) ? source : resolve(source);
  const file = typeof e.source === "string" && e.source !== root ? e.source : "";
  return `${where} $ref points to nothing: ${file}${String(e.targetRef)} does not exist (no "${String(e.targetToken)}")`;
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n").slice(0, 6).join("\n");
}
