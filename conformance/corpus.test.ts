import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startPrism } from "../src/mock/prism.js";
import { KIT_ROOT } from "../src/paths.js";
import { corpusDocuments } from "../test/corpus.js";
import { loadBaseline, type Baseline } from "../src/harness/baseline.js";
import { runConformance } from "../src/harness/run.js";

// Public OpenAPI documents nobody here wrote (test/data/corpus, licences in its README), as a user
// would try them: each loads, and a run of generated cases against the real Prism mocking it reaches
// a verdict with every operation exercised. Prism's own departures are the shipped prism-mock
// baseline (by behaviour); what remains is each document's own record in test/data/corpus/expected/,
// every entry read: the document's examples (which Prism serves) breaking its own schemas, mostly.
// Six documents of every kind run here (3.0 and 3.1, YAML and JSON, with and without a record); the
// others, and those whose run takes more than a few seconds, run in the benchmark instead
// (bench/corpus-survey.ts, figures in docs/corpus.md), to keep the suite fast on three Node versions.
const IN_SUITE = [
  "adyen-bin-lookup",
  "canada-holidays",
  "color-pizza",
  "decentraland-catalyst",
  "mineskin",
  "vonage-number-insight",
];

const prismMock = loadBaseline("prism-mock");

function expectedOf(name: string): Baseline {
  const file = join(KIT_ROOT, "test", "data", "corpus", "expected", `${name}.json`);
  const own = existsSync(file) ? loadBaseline(file).deviations : [];
  return { deviations: [...prismMock.deviations, ...own] };
}

describe("the corpus of public documents against Prism mocks of themselves", () => {
  it.each(corpusDocuments(IN_SUITE).map((d) => [d.name, d] as const))(
    "%s: against a Prism mock of itself, every operation exercised, exit 0 with what is known",
    async (_name, doc) => {
      const prism = await startPrism({ port: 0, spec: doc.file });
      try {
        const { summary, results } = await runConformance({
          target: prism.url,
          // Prism takes any credentials; one value serves bearer, apiKey and basic (USER:PASSWORD) schemes.
          token: "user:example-credential",
          spec: doc.file,
          noFixtures: true,
          // Fewer requests than the survey's 20: the records hold whatever the count (every finding in
          // them is about an answer, not about a value), and the suite runs on three Node versions.
          generate: { count: 8 },
          seed: 5n,
          baseline: expectedOf(doc.name),
        });
        const bad = results.filter((r) => r.outcome === "fail" || r.outcome === "error");
        expect(summary.exitCode, JSON.stringify(bad, null, 1).slice(0, 3000)).toBe(0);
        expect(summary.coverage.operations.notExercised).toEqual([]);
        // Every entry of the document's record still occurs: a record is evidence, not a wish list.
        expect(summary.staleBaseline).toEqual([]);
      } finally {
        await prism.stop();
      }
    },
    180_000,
  );
});
