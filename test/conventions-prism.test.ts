// The convention set's checker proven against a stateless mock: the real Prism of every convention
// document breaks at least one promise, so a promise cannot be kept without keeping state. Node's
// version changes nothing here: it runs once in CI (vitest.config.ts CORPUS_SCALE).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startPrism } from "../src/mock/prism.js";
import { brokenIds, checkConvention } from "./conventions/check.js";
import { CONVENTIONS } from "./conventions/index.js";
import { tempDir } from "./temp-dir.js";

const dir = tempDir("conventions-prism-");

describe("the checker's proof against a stateless mock", () => {
  const prisms: { stop(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const p of prisms) await p.stop();
  });
  it.each(CONVENTIONS.map((c) => [c.name, c] as const))(
    "the real Prism of %s breaks at least one promise",
    async (_name, convention) => {
      const spec = join(dir, `${convention.name}.json`);
      writeFileSync(spec, JSON.stringify(convention.document, null, 2));
      const prism = await startPrism({ spec, port: 0 });
      prisms.push(prism);
      const outcomes = await checkConvention(convention, prism.url);
      expect(brokenIds(outcomes).length).toBeGreaterThan(0);
    },
    60_000,
  );
});
