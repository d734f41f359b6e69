import SwaggerParser from "@apidevtools/swagger-parser";
import { KitError } from "../errors.js";
import { compileContract, type Contract } from "./contract.js";
import { openapiSchemaProblems } from "./openapi-schema.js";

// Node only (swagger-parser reads files and URLs; the schema check is loaded with createRequire).
// compileContract, in contract.ts, runs anywhere: browsers get the document already bundled.

type Json = Record<string, unknown>;

/** Reads, validates and compiles an OpenAPI 3.0/3.1 document from a file path or URL. */
export async function loadContract(source: string): Promise<Contract> {
  let bundled: Json;
  try {
    bundled = (await new SwaggerParser().bundle(source)) as unknown as Json;
  } catch (error) {
    throw new KitError("PS_SPEC_UNREADABLE", `${source}: ${firstLine(error)}`, { cause: error });
  }
  // What swagger-parser's validate() does for OpenAPI 3 (its "spec" checks cover Swagger 2.0 only):
  // dereference, circular $refs left in place, then check against the OpenAPI JSON Schema, with the
  // schema compiled at build time rather than on every load.
  let dereferenced: Json;
  try {
    dereferenced = (await new SwaggerParser().dereference(structuredClone(bundled) as never, {
      dereference: { circular: "ignore" },
    })) as unknown as Json;
  } catch (error) {
    throw new KitError("PS_SPEC_INVALID", `${source}: ${firstLine(error)}`, { cause: error });
  }
  const problems = openapiSchemaProblems(dereferenced);
  if (problems.length > 0) throw new KitError("PS_SPEC_INVALID", `${source}: ${problems.join("; ")}`);
  return compileContract(bundled, source);
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n").slice(0, 6).join("\n");
}
