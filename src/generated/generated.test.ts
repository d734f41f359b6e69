import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { DEFAULT_SPEC, KIT_ROOT } from "../paths.js";

it("the generated types are up to date with spec/openapi.yaml (npm run gen:types)", async () => {
  const out = join(mkdtempSync(join(tmpdir(), "plantstore-types-")), "plant-store.ts");
  await promisify(execFile)(join(KIT_ROOT, "node_modules", ".bin", "openapi-typescript"), [DEFAULT_SPEC, "-o", out], { cwd: KIT_ROOT });
  expect(readFileSync(join(KIT_ROOT, "src", "generated", "plant-store.ts"), "utf8")).toBe(readFileSync(out, "utf8"));
});
