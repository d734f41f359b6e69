import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "vitest";
import { loadContract } from "../src/contract/index.js";
import { startMockServer } from "../src/server/index.js";
import { brokenIds, checkConvention } from "./conventions/check.js";
import { CONVENTIONS } from "./conventions/index.js";
import { CONVENTION_TOKEN } from "./conventions/kit.js";
import { tempDir } from "./temp-dir.js";
it("prints the gaps", async () => {
  const dir = tempDir("gaps-");
  const only = (process.env.GAPS_ONLY ?? "").split(",").filter(Boolean);
  const out: Record<string, string[]> = {};
  for (const c of CONVENTIONS) {
    if (only.length > 0 && !only.includes(c.name)) continue;
    const file = join(dir, `${c.name}.json`);
    writeFileSync(file, JSON.stringify(c.document));
    const server = await startMockServer({ contract: await loadContract(file), port: 0, tokens: [CONVENTION_TOKEN] });
    try {
      const outcomes = await checkConvention(c, server.url);
      out[c.name] = brokenIds(outcomes);
      if (process.env.GAPS_WHY) for (const o of outcomes) if (o.broken) console.log(c.name, o.promise, "::", o.broken.slice(0, 300));
    } finally {
      await server.close(100);
    }
  }
  writeFileSync("/tmp/gaps.json", JSON.stringify(out, null, 2));
}, 120_000);
