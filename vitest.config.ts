import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "conformance/**/*.test.ts", "test/**/*.test.ts", "bench/**/*.test.ts"],
    // Every temp folder a run makes is checked for and removed at the end (test/temp-check.ts).
    globalSetup: ["test/temp-check.ts"],
    // Two files at a time, also on a two-core machine (Vitest's default there is one): most files
    // wait on child processes and loopback servers (the CLI, Prism, a browser), so two overlap well;
    // on 2026-11-24, two cores: 219 s for the whole suite (one file at a time took 355 s, with other
    // work on the machine, and about 5 minutes per Node version in CI before that).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
