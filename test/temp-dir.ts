import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, onTestFinished, TestRunner } from "vitest";

/**
 * A fresh folder under os.tmpdir(), removed after the test that made it (pass or fail), or after the
 * file when made at module or describe level; not from inside beforeAll/afterAll, where the removal
 * could not be registered.
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // force: the test may have removed it itself; maxRetries: a child process still writing there fails the first try.
  const remove = (): void => rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  // onTestFinished only exists inside a running test; afterAll only registers while the file is collected.
  if (TestRunner.getCurrentTest() === undefined) afterAll(remove);
  else onTestFinished(remove);
  return dir;
}
