import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { readContractDocument } from "../src/contract/load-contract.js";
import { tempDir } from "../test/temp-dir.js";
import { largeSpecYaml } from "./spec-load-document.js";

// Keeps bench/spec-load.ts from rotting: the document it times is about 5,000 lines of valid OpenAPI
// 3.1 with the operations it says. Nothing here asserts a time.
it("the document bench/spec-load.ts loads is ~5,000 lines of valid OpenAPI 3.1 with 200 operations", async () => {
  const yaml = largeSpecYaml();
  expect(yaml.split("\n").length - 1).toBe(5072);
  const file = join(tempDir("plantstore-spec-load-"), "openapi.yaml");
  writeFileSync(file, yaml);
  const document = await readContractDocument(file);
  const paths = Object.values(document.paths as Record<string, Record<string, unknown>>);
  expect(paths).toHaveLength(80);
  expect(paths.flatMap((item) => Object.keys(item).filter((k) => k !== "parameters"))).toHaveLength(200);
});
