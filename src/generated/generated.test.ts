import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/temp-dir.js";
import { compileContract, loadContract } from "../contract/index.js";
import { KitError } from "../errors.js";
import { DEFAULT_SPEC, KIT_ROOT } from "../paths.js";
import { PLANT_STORE_DOCUMENT } from "./plant-store-document.js";

const run = promisify(execFile);

describe("generated code is up to date (npm run gen)", () => {
  it("types from spec/openapi.yaml", async () => {
    const out = join(tempDir("plantstore-types-"), "plant-store.ts");
    await run(join(KIT_ROOT, "node_modules", ".bin", "openapi-typescript"), [DEFAULT_SPEC, "-o", out], { cwd: KIT_ROOT });
    expect(readFileSync(join(KIT_ROOT, "src", "generated", "plant-store.ts"), "utf8")).toBe(readFileSync(out, "utf8"));
  });

  it("the OpenAPI 3.0 and 3.1 schema validators, and the bundled spec document", async () => {
    const dir = tempDir("plantstore-gen-");
    await run(process.execPath, [join(KIT_ROOT, "scripts", "generate.mjs"), dir]);
    for (const f of ["openapi-3.0-schema.cjs", "openapi-3.1-schema.cjs", "plant-store-document.ts"]) {
      expect(readFileSync(join(KIT_ROOT, "src", "generated", f), "utf8"), f).toBe(readFileSync(join(dir, f), "utf8"));
    }
  });

  it("the bundled spec document compiles to the contract loadContract gives", async () => {
    const loaded = await loadContract(DEFAULT_SPEC);
    const compiled = compileContract(PLANT_STORE_DOCUMENT, "generated");
    expect(compiled.document).toEqual(loaded.document);
    expect(compiled.operations.map((o) => [o.operationId, o.method, o.pathTemplate])).toEqual(loaded.operations.map((o) => [o.operationId, o.method, o.pathTemplate]));
  });
});

describe("the precompiled OpenAPI schema check agrees with swagger-parser's validate()", () => {
  const info = { title: "t", version: "1" };
  it.each([
    ["3.1 valid", { openapi: "3.1.0", info, paths: {} }, true],
    ["3.1 without info", { openapi: "3.1.0", paths: {} }, false],
    ["3.1 responses not an object", { openapi: "3.1.0", info, paths: { "/a": { get: { responses: "x" } } } }, false],
    ["3.1 unknown top-level field", { openapi: "3.1.0", info, paths: {}, bogus: 1 }, false],
    ["3.0 valid", { openapi: "3.0.3", info, paths: { "/a": { get: { responses: { "200": { description: "ok" } } } } } }, true],
    ["3.0 response without description", { openapi: "3.0.3", info, paths: { "/a": { get: { responses: { "200": {} } } } } }, false],
    ["3.0 bad parameter location", { openapi: "3.0.3", info, paths: { "/a": { get: { parameters: [{ name: "x", in: "body" }], responses: { "200": { description: "ok" } } } } } }, false],
  ])("%s", async (_name, doc, valid) => {
    const file = join(tempDir("plantstore-oas-"), "spec.json");
    writeFileSync(file, JSON.stringify(doc));
    const theirs = await SwaggerParser.validate(structuredClone(doc) as never).then(() => true, () => false);
    const ours = await loadContract(file).then(
      () => true,
      (e: unknown) => {
        expect((e as KitError).code).toBe("PS_SPEC_INVALID");
        return false;
      },
    );
    expect(theirs).toBe(valid);
    expect(ours).toBe(valid);
  });
});
