// Writing a file whole or not at all, for every file the harness and the proxy write (reports,
// baselines, certificates, saved fixtures).
import { renameSync, writeFileSync } from "node:fs";
import { KitError } from "../errors.js";

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
