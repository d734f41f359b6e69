import { renameSync, writeFileSync } from "node:fs";
import { KitError } from "../../src/errors.js";

/** Writes a whole file or nothing: a temporary file renamed into place. */
export function writeFileAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (error) {
    throw new KitError("PS_REPORT_UNWRITABLE", `${file}: ${(error as Error).message}`);
  }
}
