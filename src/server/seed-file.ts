import { readFileSync } from "node:fs";
import type { Contract } from "../contract/portable.js";
import { KitError } from "../errors.js";
import { parseSeedData, type SeedPlant } from "./admin.js";

/**
 * Reads `--data FILE`, a JSON array of NewPlant objects to start the store with, checked as
 * parseSeedData checks it; any problem names the file, the index and the field. Node only.
 */
export function loadSeedData(file: string, contract: Contract): SeedPlant[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `--data ${file}: ${(error as Error).message}`);
  }
  return parseSeedData(text, contract, file);
}
