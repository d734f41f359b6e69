import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadContract } from "../../contract/index.js";
import { DEFAULT_SPEC, KIT_ROOT } from "../../paths.js";
import { kitContract } from "../../../test/helpers.js";
import { tempDir } from "../../../test/temp-dir.js";
import { certificatePath, describeBaseline, describeContract, describeFixtures } from "./inputs.js";

describe("what a certificate states of its inputs", () => {
  it("the contract's hash survives re-ordering, re-indenting and YAML to JSON, not an edit", async () => {
    const dir = tempDir("plantstore-cert-spec-");
    const original = describeContract(await kitContract());
    // Keys reversed at every level, written as JSON with another indentation, once as .json, once as .yaml.
    const reversed = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reversed)
        : v !== null && typeof v === "object"
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reversed(x)]),
            )
          : v;
    const document = reversed((await kitContract()).document);
    for (const name of ["spec.json", "spec.yaml"]) {
      writeFileSync(join(dir, name), JSON.stringify(document, null, 4));
      expect(describeContract(await loadContract(join(dir, name))).sha256).toBe(original.sha256);
    }
    const edited = readFileSync(DEFAULT_SPEC, "utf8").replace(
      "description: Plants in the store",
      "description: Plants in the shop",
    );
    writeFileSync(join(dir, "edited.yaml"), edited);
    expect(describeContract(await loadContract(join(dir, "edited.yaml"))).sha256).not.toBe(original.sha256);
    expect(original).toMatchObject({ path: "spec/openapi.yaml", title: "Plant Store", openapi: "3.1.0" });
    expect(original.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a split spec is hashed as bundled", async () => {
    const split = describeContract(await loadContract(join(KIT_ROOT, "test", "data", "split-spec", "openapi.yaml")));
    expect(split.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("the fixture set's hash depends on each file's content and name, not its layout", () => {
    const dir = tempDir("plantstore-cert-fixtures-");
    const files = ["a.json", "b.json"];
    const write = (name: string, value: unknown, indent = 2): void =>
      writeFileSync(join(dir, name), JSON.stringify(value, null, indent));
    write(files[0]!, { id: "a", n: 1 });
    write(files[1]!, { id: "b", n: 2 });
    writeFileSync(join(dir, "notes.txt"), "not a fixture");
    const first = describeFixtures(dir, dir);
    expect(first).toMatchObject({ path: ".", count: 2 });
    write("b.json", { n: 2, id: "b" }, 0);
    expect(describeFixtures(dir, dir).sha256).toBe(first.sha256);
    write("b.json", { n: 3, id: "b" });
    expect(describeFixtures(dir, dir).sha256).not.toBe(first.sha256);
  });

  it("baselines are hashed canonically, with their count", () => {
    const dir = tempDir("plantstore-cert-baseline-");
    const file = join(dir, "baseline.json");
    writeFileSync(file, JSON.stringify({ deviations: [{ fixture: "x", check: "status-documented" }] }));
    expect(describeBaseline(file, dir)).toMatchObject({ path: "baseline.json", count: 1 });
  });

  it("paths are relative to the working folder, URLs lose their user info", () => {
    expect(certificatePath("/a/b/spec.yaml", "/a")).toBe("b/spec.yaml");
    expect(certificatePath("https://user:pw@example.com/spec.yaml")).toBe("https://example.com/spec.yaml");
  });
});
