import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The kit's root folder, found from this file whether it runs from src/ (tests) or dist/src/. */
function findKitRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "spec", "openapi.yaml")) && existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`cannot find the kit's root above ${start}`);
  }
}

export const KIT_ROOT = findKitRoot(dirname(fileURLToPath(import.meta.url)));
/** The kit's own OpenAPI document: the one source of truth. */
export const DEFAULT_SPEC = join(KIT_ROOT, "spec", "openapi.yaml");
export const DEFAULT_FIXTURES = join(KIT_ROOT, "fixtures");

/** A file path relative to the working folder when that is shorter, for readable rules. */
export function shortPath(source: string): string {
  if (!isAbsolute(source)) return source;
  const rel = relative(process.cwd(), source);
  return rel.length < source.length ? rel : source;
}
