import { createRequire } from "node:module";
import type { ErrorObject } from "ajv";

type StandaloneValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

const require = createRequire(import.meta.url);
let validators: { "3.0": StandaloneValidator; "3.1": StandaloneValidator } | undefined;

/**
 * Checks a document against the OpenAPI 3.0 or 3.1 JSON Schema: the same schemas, options and
 * workaround as swagger-parser's validate(), compiled at build time (scripts/generate.mjs) instead of
 * on every load. Returns the problems, at most `max`, empty when the document is valid.
 */
export function openapiSchemaProblems(document: Record<string, unknown>, max = 5): string[] {
  const version = String(document.openapi ?? document.swagger ?? "");
  const key = /^3\.0\.\d+/.test(version) ? "3.0" : /^3\.1\.\d+/.test(version) ? "3.1" : undefined;
  if (key === undefined) return [`openapi: "${version}" is not a supported version (3.0.x or 3.1.x)`];
  validators ??= {
    "3.0": require("../generated/openapi-3.0-schema.cjs") as StandaloneValidator,
    "3.1": require("../generated/openapi-3.1-schema.cjs") as StandaloneValidator,
  };
  const validate = validators[key];
  if (validate(document)) return [];
  return (validate.errors ?? [])
    .slice(0, max)
    .map(
      (e) =>
        `${e.instancePath || "/"} ${e.message ?? "is invalid"}${e.params && "additionalProperty" in e.params ? ` (${String(e.params.additionalProperty)})` : ""}`,
    );
}
