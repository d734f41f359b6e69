import { configDefaults, defineConfig } from "vitest/config";

/**
 * The files that judge whole public documents (the corpus, the OAI examples, the mock engine of each)
 * the benchmark's smoke runs and the convention checker's proof against the real Prism: the kit's
 * logic at corpus scale, which does not depend on Node's
 * version. `npm test` runs them; .ci/run's runs on the other supported Node versions
 * (PLANTSTORE_TEST_SET=versions) leave them out, and say so, to keep CI well under 15 minutes.
 */
export const CORPUS_SCALE = [
  "bench/bench.test.ts",
  "conformance/corpus.test.ts",
  "conformance/corpus-load.test.ts",
  "conformance/engine-corpus.test.ts",
  "conformance/oai-examples.test.ts",
  "test/conventions-prism.test.ts",
];

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "conformance/**/*.test.ts", "test/**/*.test.ts", "bench/**/*.test.ts"],
    exclude:
      process.env.PLANTSTORE_TEST_SET === "versions"
        ? [...configDefaults.exclude, ...CORPUS_SCALE]
        : [...configDefaults.exclude],
    // Every temp folder a run makes is checked for and removed at the end (test/temp-check.ts).
    globalSetup: ["test/temp-check.ts"],
    // Two files at a time, also on a two-core machine (Vitest's default there is one): most files
    // wait on child processes and loopback servers (the CLI, Prism, a browser), so two overlap well;
    // on 2026-11-24, two cores: 219 s for the whole suite (one file at a time took 355 s, with other
    // work on the machine, and about 5 minutes per Node version in CI before that). Three at a time
    // took longer (326 s against 274): the suite is CPU-bound there.
    maxWorkers: 2,
    // The files of a worker share its modules rather than importing the kit again each (no test
    // relies on a fresh module: none mocks one): 251 s instead of 274 for the whole suite.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
