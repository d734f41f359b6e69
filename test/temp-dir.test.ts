import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./temp-dir.js";

// The tests run in order in one file: each later test looks at what an earlier one left.
const fileLevel = tempDir("plantstore-helper-file-");

describe("a folder made inside a test", () => {
  let passed = "";
  let failed = "";

  it("is a fresh, writable folder under os.tmpdir() named by its prefix", () => {
    passed = tempDir("plantstore-helper-test-");
    expect(dirname(passed)).toBe(tmpdir());
    expect(passed).toMatch(/plantstore-helper-test-\w{6}$/);
    writeFileSync(join(passed, "file.txt"), "content"); // not empty: removal must be recursive
    expect(existsSync(join(passed, "file.txt"))).toBe(true);
  });

  it("is gone once that test has finished", () => {
    expect(passed).not.toBe("");
    expect(existsSync(passed)).toBe(false);
  });

  it.fails("is removed even when the test fails (this one fails on purpose)", () => {
    failed = tempDir("plantstore-helper-failed-");
    writeFileSync(join(failed, "file.txt"), "content");
    expect(existsSync(failed)).toBe(false);
  });

  it("is gone after the failed test too", () => {
    expect(failed).not.toBe("");
    expect(existsSync(failed)).toBe(false);
  });
});

// Set while the file is collected, before any test runs.
let describeLevel = "";

describe("a folder made while a describe block is collected", () => {
  const shared = tempDir("plantstore-helper-describe-");
  describeLevel = shared;

  it("lasts across the block's tests", () => {
    expect(existsSync(shared)).toBe(true);
  });

  it("and is still there for the next one", () => {
    expect(existsSync(shared)).toBe(true);
  });
});

describe("after that describe block has ended", () => {
  it("its folder is gone", () => {
    expect(describeLevel).not.toBe("");
    expect(existsSync(describeLevel)).toBe(false);
  });

  it("a folder made at module level lasts until the whole file is done", () => {
    expect(existsSync(fileLevel)).toBe(true);
  });
});
