// Loading fixtures: every `*.json` file of a folder, checked by the fixture format's JSON Schema,
// against the spec (its operations exist) and for honesty (fixture-honesty.ts). The types of a fixture
// are in fixture-types.ts, the preparing of a step's request in prepare-request.ts; both are
// re-exported here for the modules that import them from this file.
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { Contract } from "../contract/index.js";
import { parseJsonExact } from "../contract/index.js";
import { KitError } from "../errors.js";
import { KIT_ROOT } from "../paths.js";
import { checkHonesty } from "./fixture-honesty.js";
import type { Fixture, FixtureStep } from "./fixture-types.js";
import { LEVELS } from "./levels.js";

export { stepOperation } from "./fixture-types.js";
export type {
  Credentials,
  EarlierExchange,
  ExpectKind,
  Expectation,
  Fixture,
  FixtureRequest,
  FixtureStep,
  PreparedRequest,
  Secrets,
} from "./fixture-types.js";
export { checkPrepared, requestProblems } from "./fixture-honesty.js";
export { NotYetKnown } from "./fixture-values.js";
export { prepareRequest } from "./prepare-request.js";

const FIXTURE_SCHEMA_FILE = join(KIT_ROOT, "conformance", "fixture.schema.json");
let validateFixture: ReturnType<Ajv2020["compile"]> | undefined;

function fixtureValidator(): ReturnType<Ajv2020["compile"]> {
  if (validateFixture === undefined) {
    // The format's own schema is checked against the meta-schema by fixtures.test.ts, not on every run.
    const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false });
    validateFixture = ajv.compile(JSON.parse(readFileSync(FIXTURE_SCHEMA_FILE, "utf8")));
  }
  return validateFixture;
}

/** The names of a fixture folder's `*.json` files, in file-name order; an unreadable folder is PS_FILE_UNREADABLE. */
export function fixtureFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort();
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `fixtures folder ${dir}: ${(error as Error).message}`);
  }
}

/**
 * Loads every `*.json` file of a folder as a fixture, in file-name order. Each is checked by the
 * fixture format's JSON Schema, against the spec (its operation exists), and for honesty: a step
 * that says `valid` must send a request the contract accepts, one that says `invalid` one it rejects.
 * Any problem is a PS_FIXTURE_* error naming the file and the field; nothing is skipped silently.
 */
export function loadFixtures(dir: string, contract: Contract): Fixture[] {
  const files = fixtureFiles(dir);
  if (files.length === 0) throw new KitError("PS_FIXTURE_INVALID", `${dir}: no .json fixture files`);
  return files.map((f) => loadFixture(join(dir, f), contract));
}

export function loadFixture(file: string, contract: Contract): Fixture {
  const fail = (detail: string): never => {
    throw new KitError("PS_FIXTURE_INVALID", `${file}: ${detail}`);
  };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `${file}: ${(error as Error).message}`);
  }
  const parsed = parseJsonExact(text);
  if (!parsed.ok) return fail(`not valid JSON: ${parsed.message}`);
  const steps = (parsed.value as { steps?: unknown }).steps;
  (Array.isArray(steps) ? steps : []).forEach((step: { expect?: { severity?: unknown } } | null, i) => {
    if (step?.expect?.severity !== undefined) {
      fail(
        `field /steps/${i}/expect/severity: replaced by "level" (a warning is a rule of a level beyond the contract: ${LEVELS.slice(1).join(", ")})`,
      );
    }
  });
  const validate = fixtureValidator();
  if (!validate(parsed.value)) {
    const e = validate.errors?.[0];
    const missing =
      e?.keyword === "required" ? `/${String((e.params as { missingProperty: string }).missingProperty)}` : "";
    const where = e === undefined ? "/" : `${e.instancePath}${missing}` || "/";
    return fail(`field ${where}: ${e?.keyword === "required" ? "is required" : (e?.message ?? "is invalid")}`);
  }
  for (const pointer of parsed.exact.pointers()) {
    if (/^\/steps\/\d+\/request\/body(\/|$)/.test(pointer)) {
      fail(`field ${pointer}: a number a double cannot hold exactly; write it in rawBody, or use {"$fresh": ...}`);
    }
  }
  const data = parsed.value as { id: string; description: string; operation: string; steps: FixtureStep[] };
  if (data.id !== basename(file, ".json")) fail(`field /id: "${data.id}" must equal the file name without .json`);
  const operation = contract.operation(data.operation);
  if (operation === undefined) {
    throw new KitError(
      "PS_FIXTURE_UNKNOWN_OPERATION",
      `${file}: field /operation: "${data.operation}" is not an operationId of ${contract.source}`,
    );
  }
  const stepOperations = data.steps.map((step, i) => {
    if (step.operation === undefined) return operation;
    const other = contract.operation(step.operation);
    if (other === undefined)
      throw new KitError(
        "PS_FIXTURE_UNKNOWN_OPERATION",
        `${file}: field /steps/${i}/operation: "${step.operation}" is not an operationId of ${contract.source}`,
      );
    return other;
  });
  const fixture: Fixture = {
    id: data.id,
    description: data.description,
    operationId: data.operation,
    steps: data.steps,
    file,
    operation,
    ...(data.steps.some((st) => st.operation !== undefined) ? { stepOperations } : {}),
  };
  checkHonesty(fixture, fail);
  return fixture;
}
