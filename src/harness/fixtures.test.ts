import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KitError } from "../errors.js";
import { DEFAULT_FIXTURES } from "../paths.js";
import { kitContract } from "../../test/helpers.js";
import { tempDir } from "../../test/temp-dir.js";
import { loadFixture, loadFixtures } from "./fixtures.js";

const contract = await kitContract();

function write(name: string, data: unknown): string {
  const dir = tempDir("plantstore-fx-");
  const file = join(dir, `${name}.json`);
  writeFileSync(file, typeof data === "string" ? data : JSON.stringify(data));
  return file;
}
const LATIN1_JSON = "application/json; charset=latin1";
const base = (steps: unknown[], extra: Record<string, unknown> = {}) => ({
  id: "case",
  description: "d",
  operation: "createPlant",
  steps,
  ...extra,
});
const errorOf = (fn: () => unknown): KitError => {
  try {
    fn();
  } catch (e) {
    return e as KitError;
  }
  throw new Error("no error");
};

describe("the fixture format", () => {
  it("is a valid JSON Schema 2020-12 document", async () => {
    const { Ajv2020 } = await import("ajv/dist/2020.js");
    const { readFileSync } = await import("node:fs");
    const { KIT_ROOT } = await import("../paths.js");
    const ajv = new Ajv2020({ strict: false });
    const schema = JSON.parse(readFileSync(join(KIT_ROOT, "conformance", "fixture.schema.json"), "utf8"));
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
  });
});

describe("loadFixtures", () => {
  it("loads the kit's fixtures: each honest by the spec, sorted by file name", () => {
    const fixtures = loadFixtures(DEFAULT_FIXTURES, contract);
    expect(fixtures.length).toBeGreaterThanOrEqual(40);
    expect(fixtures.map((f) => `${f.id}.json`)).toEqual(fixtures.map((f) => `${f.id}.json`).sort());
    const kinds = new Set(fixtures.flatMap((f) => f.steps.map((s) => s.expect.kind)));
    expect([...kinds].sort()).toEqual(["duplicate", "invalid", "unauthorised", "valid"]);
  });

  it.each([
    ["not JSON", "{", "not valid JSON"],
    ["a missing field", { id: "case", description: "d", steps: [] }, "field /operation: is required"],
    ["an unknown kind", base([{ request: {}, expect: { kind: "maybe" } }]), "field /steps/0/expect/kind"],
    [
      "body and rawBody together",
      base([{ request: { body: {}, rawBody: "{}" }, expect: { kind: "invalid" } }]),
      "field /steps/0/request",
    ],
    [
      "an id that is not the file name",
      base([{ request: { body: { id: 1, name: "a" } }, expect: { kind: "valid" } }], { id: "other" }),
      'field /id: "other" must equal the file name',
    ],
    [
      "a valid step whose body the spec rejects",
      base([{ request: { body: { id: "1", name: "a" } }, expect: { kind: "valid" } }]),
      'expects "valid" but the request breaks the contract: body/id: must be an integer',
    ],
    // The server refuses JSON in another charset (RFC 8259 section 8.1), so a fixture cannot call it valid.
    [
      "a valid step sent as JSON in latin1",
      base([
        {
          request: { headers: { "Content-Type": LATIN1_JSON }, body: { id: 1, name: "a" } },
          expect: { kind: "valid" },
        },
      ]),
      'expects "valid" but the request breaks the contract: charset "latin1" is not UTF-8',
    ],
    [
      "an invalid step whose body the spec accepts",
      base([{ request: { body: { id: 1, name: "a" } }, expect: { kind: "invalid" } }]),
      'expects "invalid" but the spec accepts the request',
    ],
    [
      "an unauthorised step with valid credentials",
      base([{ request: { body: { id: 1, name: "a" } }, expect: { kind: "unauthorised" } }]),
      "sends valid credentials",
    ],
    [
      "an unknown fresh kind",
      base([{ request: { body: { id: { $fresh: "a", kind: "int128" }, name: "a" } }, expect: { kind: "valid" } }]),
      'unknown fresh kind "int128"',
    ],
    [
      "a big number in a structured body",
      '{"id":"case","description":"d","operation":"createPlant","steps":[{"request":{"body":{"id":9223372036854775807,"name":"a"}},"expect":{"kind":"valid"}}]}',
      "write it in rawBody",
    ],
    [
      "existingAnswerFrom naming a later step",
      base([{ request: { body: { id: 1, name: "a" } }, expect: { kind: "valid", existingAnswerFrom: 0 } }]),
      "must name an earlier step",
    ],
  ])("refuses %s, naming the file and field", (_what, data, message) => {
    const file = write("case", data);
    const e = errorOf(() => loadFixture(file, contract));
    expect(e).toBeInstanceOf(KitError);
    expect(e.code).toBe("PS_FIXTURE_INVALID");
    expect(e.message).toContain(file);
    expect(e.message).toContain(message);
  });

  it("refuses an unknown operation with PS_FIXTURE_UNKNOWN_OPERATION", () => {
    const file = write("case", base([{ request: {}, expect: { kind: "unauthorised" } }], { operation: "deletePlant" }));
    expect(errorOf(() => loadFixture(file, contract)).code).toBe("PS_FIXTURE_UNKNOWN_OPERATION");
  });

  it("refuses an empty folder and a missing one", () => {
    expect(errorOf(() => loadFixtures(tempDir("plantstore-empty-"), contract)).code).toBe("PS_FIXTURE_INVALID");
    expect(errorOf(() => loadFixtures("/nonexistent-fixtures", contract)).code).toBe("PS_FILE_UNREADABLE");
  });
});
