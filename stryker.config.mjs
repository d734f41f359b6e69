// Mutation testing on demand: `npm run mutate` (never in `npm test` or CI). StrykerJS plants small
// bugs (mutants) in the contract layer, the checks and the mock engine, and runs the unit tests of
// vitest.mutate.config.ts against each: a mutant no test fails survived. docs/testing.md has the last
// score and the survivors worth noting. Reports go to reports/ and the sandboxes to .stryker-tmp/,
// both git-ignored; the incremental file there lets a later run test only the mutants a change touched.

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "vitest.mutate.config.ts", related: false },
  mutate: [
    "src/contract/**/*.ts",
    "src/harness/checks.ts",
    "src/server/engine*.ts",
    "!**/*.test.ts",
    // Re-exports only.
    "!src/contract/index.ts",
    "!src/contract/portable.ts",
  ],
  // Each mutant runs only the tests that reach it.
  coverageAnalysis: "perTest",
  // Mutants of module-level values (tables, constants) would each need every test of the set, in a
  // fresh process: left out (200 of the 2,954 mutants of the files measured in docs/testing.md).
  ignoreStatic: true,
  incremental: true,
  incrementalFile: "reports/stryker-incremental.json",
  concurrency: 2,
  tempDirName: ".stryker-tmp",
  // The sandbox needs the sources, tests and their data, not the build or the benchmark's results.
  ignorePatterns: ["dist", "coverage", "reports", "bench/results", ".ci/nodes", "*.log"],
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  thresholds: { high: 80, low: 60, break: null },
};
