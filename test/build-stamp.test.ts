import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KIT_ROOT } from "../src/paths.js";
import { tempDir } from "./temp-dir.js";

// `npm start` builds only when a source is newer than the last build (scripts/build-stamp.mjs).
const dir = tempDir("build-stamp-");
const script = join(dir, "scripts", "build-stamp.mjs");
mkdirSync(join(dir, "scripts"), { recursive: true });
mkdirSync(join(dir, "src"), { recursive: true });
copyFileSync(join(KIT_ROOT, "scripts", "build-stamp.mjs"), script);
const run = (mode: string): number => {
  try {
    execFileSync(process.execPath, [script, mode], { stdio: "ignore" });
    return 0;
  } catch (error) {
    return (error as { status: number }).status;
  }
};

describe("the build stamp", () => {
  it("says stale before any build, fresh after one, stale again once a source changes", () => {
    const source = join(dir, "src", "a.ts");
    writeFileSync(source, "export {};\n");
    const past = new Date(Date.now() - 60_000);
    utimesSync(source, past, past);
    utimesSync(script, past, past);
    expect(run("check")).toBe(1);
    expect([run("begin"), run("end")]).toEqual([0, 0]);
    expect(run("check")).toBe(0);
    const later = new Date(Date.now() + 60_000);
    utimesSync(source, later, later);
    expect(run("check")).toBe(1);
  });
});
