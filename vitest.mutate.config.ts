import { defineConfig } from "vitest/config";

/**
 * The tests `npm run mutate` (Stryker, stryker.config.mjs) runs against each mutant: the in-process
 * unit tests of the code it mutates (the contract layer, the checks, the mock engine). Files that
 * start child processes, Prism, a browser or the CLI from `dist/` are left out: what they run is not
 * the mutated code, and they would cost minutes per mutant. Not part of `npm test`.
 */
export const MUTATION_TESTS = [
  // The contract layer.
  "src/contract/acceptability-params.test.ts",
  "src/contract/acceptability.test.ts",
  "src/contract/ajv-document.test.ts",
  "src/contract/ajv.test.ts",
  "src/contract/contract-compile.test.ts",
  "src/contract/contract.test.ts",
  "src/contract/exact-json.test.ts",
  "src/contract/exact-tree.test.ts",
  "src/contract/json-pointer.test.ts",
  "src/contract/literal-refs.test.ts",
  "src/contract/load-contract.test.ts",
  "src/contract/parameters.test.ts",
  "src/contract/plain-value.test.ts",
  "src/contract/resources-id.test.ts",
  "src/contract/resources.test.ts",
  "src/contract/routing.test.ts",
  "src/contract/unsatisfiable.test.ts",
  // The checks.
  "src/harness/checks.test.ts",
  "src/harness/checks-auth.test.ts",
  // The mock engine.
  "src/server/engine.test.ts",
  "src/server/engine-edges.test.ts",
  "src/server/engine-paging.test.ts",
  "src/server/engine-security.test.ts",
];

export default defineConfig({
  test: {
    include: MUTATION_TESTS,
    // The files share their modules rather than importing the kit again for each mutant's run: on
    // 2026-11-26, 3.3 minutes instead of 4.5 for the 335 mutants of engine-pages.ts.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
