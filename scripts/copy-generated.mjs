// tsc compiles .ts only; the generated standalone validators (.cjs) are copied beside their output.
import { cpSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
for (const f of readdirSync(join(root, "src", "generated")).filter((f) => f.endsWith(".cjs"))) {
  cpSync(join(root, "src", "generated", f), join(root, "dist", "src", "generated", f));
}
