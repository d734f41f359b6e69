import { createRequire } from "node:module";
import type { ErrorObject } from "ajv";

type StandaloneValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

const require = createRequire(import.meta.url);
let validators: { "3.0": StandaloneValidator; "3.1": StandaloneValidator } | undefined;

/**
 * Checks a document against the OpenAPI Initiative's JSON Schema for OpenAPI 3.0 or 3.1 (the current
 * official ones, https://spec.openapis.org/oas/3.0/schema/2024-10-18 and
 * https://spec.openapis.org/oas/3.1/schema/2025-11-23), with swagger-parser's options and 3.1
 * workaround, compiled at build time (scripts/generate.mjs) instead of on every load. Returns the
 * problems, each "<JSON pointer> <reason>", the most specific first, at most `max` (then a count of
 * the rest); empty when the document is valid.
 */
export function openapiSchemaProblems(document: Record<string, unknown>, max = 5): string[] {
  const raw = document.openapi ?? document.swagger;
  const version = String(raw ?? "");
  const key = /^3\.0\.\d+(-.+)?$/.test(version) ? "3.0" : /^3\.1\.\d+(-.+)?$/.test(version) ? "3.1" : undefined;
  if (key === undefined) {
    const where = document.openapi === undefined && document.swagger !== undefined ? "/swagger" : "/openapi";
    if (raw === undefined) return [`/ must have required property 'openapi' (the version, "3.0.x" or "3.1.x")`];
    return typeof raw === "string"
      ? [`${where} "${version}" is not a supported version (3.0.x or 3.1.x)`]
      : [`${where} must be a string such as "3.1.0", not ${JSON.stringify(raw)}`];
  }
  validators ??= {
    "3.0": require("../generated/openapi-3.0-schema.cjs") as StandaloneValidator,
    "3.1": require("../generated/openapi-3.1-schema.cjs") as StandaloneValidator,
  };
  const validate = validators[key];
  if (validate(document)) return [];
  const problems = describe(validate.errors ?? []);
  return problems.length > max ? [...problems.slice(0, max), `and ${problems.length - max} more`] : problems;
}

/**
 * Ajv's errors as "<pointer> <reason>": the names of unknown properties and the allowed values added;
 * the `if` errors ("must match "then" schema") dropped when other errors say more; `enum` errors at
 * one pointer (one per `oneOf` branch in the 3.0 schema) merged; the deepest pointers first.
 */
function describe(errors: readonly ErrorObject[]): string[] {
  const useful = errors.some((e) => e.keyword !== "if") ? errors.filter((e) => e.keyword !== "if") : errors;
  const allowed = new Map<string, unknown[]>();
  for (const e of useful) {
    if (e.keyword !== "enum") continue;
    const values = allowed.get(e.instancePath) ?? [];
    for (const v of (e.params as { allowedValues?: unknown[] }).allowedValues ?? []) {
      if (!values.some((w) => JSON.stringify(w) === JSON.stringify(v))) values.push(v);
    }
    allowed.set(e.instancePath, values);
  }
  const seen = new Set<string>();
  const out: { depth: number; text: string }[] = [];
  for (const e of useful) {
    const params = e.params as Record<string, unknown>;
    let detail = "";
    if (e.keyword === "additionalProperties") detail = ` (${String(params.additionalProperty)})`;
    else if (e.keyword === "unevaluatedProperties") detail = ` (${String(params.unevaluatedProperty)})`;
    else if (e.keyword === "enum")
      detail = `: ${(allowed.get(e.instancePath) ?? []).map((v) => JSON.stringify(v)).join(", ")}`;
    else if (e.keyword === "const") detail = `: ${JSON.stringify(params.allowedValue)}`;
    const text = `${e.instancePath || "/"} ${e.message ?? "is invalid"}${detail}`;
    if (seen.has(text)) continue;
    seen.add(text);
    out.push({ depth: e.instancePath === "" ? 0 : e.instancePath.split("/").length, text });
  }
  return out.sort((a, b) => b.depth - a.depth).map((p) => p.text);
}
