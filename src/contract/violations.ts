import type { ErrorObject } from "ajv";
import { INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN } from "./integer-bounds.js";
import { unescapePointer } from "./json-pointer.js";

/** One way a value breaks a schema: where, which keyword, and a sentence a person can act on. */
export interface Violation {
  /** Where in the message, such as `body/name` or `body` for the whole body. */
  readonly location: string;
  /** The JSON Schema keyword that failed (`required`, `type`, `format`, ...). */
  readonly keyword: string;
  /** What the rule demands, without the location: `must be integer`. */
  readonly message: string;
  /** Where the failed rule sits in the schema, as Ajv reports it. */
  readonly schemaPath: string;
}

const FORMAT_MESSAGES: Record<string, string> = {
  int32: `must be an integer from ${INT32_MIN} to ${INT32_MAX} (format int32)`,
  int64: `must be an integer from ${INT64_MIN} to ${INT64_MAX} (format int64)`,
};

/** Converts Ajv's errors into violations; the one place that reads Ajv's error objects. */
export function fromAjvErrors(errors: readonly ErrorObject[] | null | undefined, root: string): Violation[] {
  if (!errors) return [];
  const seen = new Set<string>();
  const out: Violation[] = [];
  for (const e of errors) {
    // allOf/anyOf report a summary error beside the specific ones; the specific ones say more.
    if (e.keyword === "allOf" || e.keyword === "if") continue;
    const v = toViolation(e, root);
    const key = `${v.location}\u0000${v.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(v);
  }
  // A value of the wrong type also fails its format; the type is the one thing to fix.
  const typed = new Set(out.filter((v) => v.keyword === "type").map((v) => v.location));
  return out.filter((v) => v.keyword !== "format" || !typed.has(v.location));
}

function toViolation(e: ErrorObject, root: string): Violation {
  const segments = e.instancePath.split("/").slice(1).map(unescapePointer);
  let message = e.message ?? "is invalid";
  const params = e.params as Record<string, unknown>;
  if (e.keyword === "required" && typeof params.missingProperty === "string") {
    segments.push(params.missingProperty);
    message = "is required";
  } else if (e.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
    segments.push(params.additionalProperty);
    message = "is not allowed (additionalProperties)";
  } else if (e.keyword === "format" && typeof params.format === "string") {
    message = FORMAT_MESSAGES[params.format] ?? message;
  } else if (e.keyword === "type" && typeof params.type === "string") {
    message = `must be ${params.type.includes(",") ? `one of ${params.type}` : withArticle(params.type)}`;
  }
  return { location: [root, ...segments].join("/"), keyword: e.keyword, message, schemaPath: e.schemaPath };
}

function withArticle(type: string): string {
  if (type === "null") return "null";
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** One line for a violation: `body/id: must be an integer (type)`. */
export function describeViolation(v: Violation): string {
  return v.message.endsWith(")") ? `${v.location}: ${v.message}` : `${v.location}: ${v.message} (${v.keyword})`;
}
