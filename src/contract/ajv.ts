import { Ajv, type Format } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { INT32_MAX, INT32_MIN, INT64_MIN } from "./integer-bounds.js";

// ajv-formats is CommonJS with a default export; under NodeNext the callable sits on .default.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export type SchemaDialect = "openapi-3.0" | "openapi-3.1";

// The bounds as doubles. -2^63 and 2^63 are doubles exactly, and INT64_MAX is not (it rounds to 2^63).
const INT64_LOW = Number(INT64_MIN);
const INT64_ABOVE = -INT64_LOW;
const INT32_LOW = Number(INT32_MIN);
const INT32_HIGH = Number(INT32_MAX);

/**
 * int64 on doubles: exact because exact-json replaces every double that is not faithful with a
 * stand-in on the same side of the bounds (2^63 itself is a double, so the upper bound is strict).
 */
const int64: Format = {
  type: "number",
  validate: (x: number) => Number.isInteger(x) && x >= INT64_LOW && x < INT64_ABOVE,
};
const int32: Format = {
  type: "number",
  validate: (x: number) => Number.isInteger(x) && x >= INT32_LOW && x <= INT32_HIGH,
};

/**
 * A regular expression engine for Ajv (its `code.regExp` option): the pattern with the flags Ajv
 * asks for (`u`), and without `u` when only that makes it valid ECMA-262 (an escaped `"`, or `-`
 * outside a class, is an identity escape that only the non-unicode grammar allows: ECMA-262 Annex B,
 * "Regular Expressions Patterns"). prepareAjvDocuments (ajv-document.ts) records a note for each such
 * pattern and leaves out the ones that are invalid either way. (`code` names it in standalone code,
 * which the kit does not generate from these validators.)
 */
export const lenientRegExp = Object.assign(
  (pattern: string, flags: string): RegExp => {
    try {
      return new RegExp(pattern, flags);
    } catch (error) {
      if (!flags.includes("u")) throw error;
      return new RegExp(pattern, flags.replace("u", ""));
    }
  },
  { code: "new RegExp" },
);

/** Picks the OpenAPI version's schema dialect; the one place that decides it. */
export function dialectOf(openapiVersion: string): SchemaDialect {
  if (/^3\.0\.\d+/.test(openapiVersion)) return "openapi-3.0";
  if (/^3\.1\.\d+/.test(openapiVersion)) return "openapi-3.1";
  throw new Error(`unsupported OpenAPI version ${openapiVersion} (3.0.x and 3.1.x are supported)`);
}

/**
 * Creates the Ajv instance for a dialect: JSON Schema 2020-12 for OpenAPI 3.1 (OAS 3.1 section
 * 4.8.24), Ajv's draft-07 core with `nullable` for OpenAPI 3.0's schema object. Formats come from
 * ajv-formats, with int32 and int64 ranges enforced exactly.
 */
export function createAjv(dialect: SchemaDialect): Ajv {
  const options = {
    allErrors: true,
    // OpenAPI schemas carry keywords JSON Schema does not know (example, xml, discriminator,
    // externalDocs, x-*); they are annotations, so unknown keywords are ignored rather than fatal.
    strict: false,
    logger: false as const,
    validateFormats: true,
    // Validators are compiled from {$ref} stubs into the document, which a meta-schema check would
    // only confirm are stubs, at the price of compiling the meta-schema (about 55 ms a process). The
    // document itself is checked against the OpenAPI schema when it is loaded.
    validateSchema: false,
    // Patterns valid ECMA-262 only without the u flag compile without it (ajv-document.ts notes which).
    // Ajv's optimising pass over generated code costs about 40% of compiling GitHub's REST API document
    // (1,200 operations: 4.7 s instead of 7.9 s) and saved no measurable time validating its bodies.
    code: { regExp: lenientRegExp, optimize: false },
    // A $ref compiles once into a function of its own that every schema naming it calls, rather than
    // into each of them: compiling a 200-operation document took 249 to 307 ms instead of 467,
    // Twilio's 614 instead of 874 (docs/startup.md), with no measurable change in validating answers.
    inlineRefs: false,
  };
  const ajv = dialect === "openapi-3.1" ? new Ajv2020(options) : new Ajv(options);
  addFormats(ajv);
  ajv.addFormat("int32", int32);
  ajv.addFormat("int64", int64);
  return ajv;
}

let checked: ReadonlySet<string> | undefined;

/**
 * The `format` values the contract checks on strings (ajv-formats' string formats); any other format
 * is an annotation on a string (Ajv runs with strict: false), so a string cannot break it. int32,
 * int64, float and double check numbers only: Telnyx's ids are `type: string, format: int64`.
 */
export function checkedFormats(): ReadonlySet<string> {
  const onStrings = ([, f]: [string, unknown]): boolean =>
    typeof f !== "object" || f === null || f instanceof RegExp || !("type" in f) || f.type === "string";
  checked ??= new Set(
    Object.entries(createAjv("openapi-3.1").formats)
      .filter(onStrings)
      .map(([name]) => name),
  );
  return checked;
}
