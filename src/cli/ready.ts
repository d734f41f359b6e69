import { accessSync, constants, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { KitError } from "../errors.js";

/**
 * `--ready-file FILE` of serve, mock and proxy: the readiness signal a plain shell step can wait on.
 * A file left from an earlier run is removed before listening; once listening, the URL and a newline
 * are written to a temporary file beside it, renamed into place (a reader never sees half a URL);
 * on stop, after the reports, the file is removed again.
 */
export interface ReadyFile {
  /** Writes the URL, atomically. */
  ready(url: string): void;
  /** Removes the file (after a stop, or when the start failed). */
  remove(): void;
}

/** Checks the folder before listening (a typo must not leave a CI step waiting forever) and clears a stale file. */
export function readyFile(file: string | undefined): ReadyFile | undefined {
  if (file === undefined) return undefined;
  const path = resolve(file);
  const folder = dirname(path);
  try {
    if (!statSync(folder).isDirectory()) throw new Error("not a folder");
    accessSync(folder, constants.W_OK);
  } catch (error) {
    throw new KitError(
      "PS_USAGE",
      `--ready-file ${file}: cannot write in ${folder} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  try {
    rmSync(path, { force: true });
  } catch (error) {
    throw new KitError("PS_USAGE", `--ready-file ${file}: ${(error as Error).message}`);
  }
  return {
    ready(url) {
      const temporary = `${path}.${process.pid}.tmp`;
      writeFileSync(temporary, `${url}\n`);
      renameSync(temporary, path);
    },
    remove() {
      rmSync(path, { force: true });
    },
  };
}
