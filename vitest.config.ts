import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "conformance/**/*.test.ts", "test/**/*.test.ts", "bench/**/*.test.ts"],
    // Every temp folder a run makes is checked for and removed at the end (test/temp-check.ts).
    globalSetup: ["test/temp-check.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
