import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { KitError } from "../errors.js";

/**
 * `--save FILE`: the store written whole after every change, atomically (a temporary file in the
 * same folder, then a rename), so a crash or a kill leaves the previous file or the new one, never a
 * torn one. Node only.
 */
export function fileSaver(file: string, snapshot: () => string): () => void {
  const temporary = `${file}.${process.pid}.tmp`;
  return () => {
    try {
      writeFileSync(temporary, snapshot());
      renameSync(temporary, file);
    } catch (error) {
      // The answer has gone out; the failure is said where the operator looks, and the next change tries again.
      console.error(`plantstore: --save ${file}: ${(error as Error).message}`);
    }
  };
}

/** The text of a `--save` file from an earlier run, or undefined when there is none yet. */
export function savedText(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `--save ${file}: ${(error as Error).message}`);
  }
}

/** The text of a `--data FILE`. */
export function dataText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `--data ${file}: ${(error as Error).message}`);
  }
}
