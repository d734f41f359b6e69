// `npm start` builds only when a source is newer than the last build (`prestart`):
//   node scripts/build-stamp.mjs begin   before a build: notes when it began
//   node scripts/build-stamp.mjs end     after it succeeded: the stamp is that moment
//   node scripts/build-stamp.mjs check   exit 0 when dist/ is newer than every source, 1 when not
// A source changed while a build ran is newer than the stamp, so the next start builds again.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const stamp = join(root, "dist", ".build-stamp");
const begun = join(root, "dist", ".build-begun");
const SOURCES = [
  "src",
  "bench",
  "test",
  "spec",
  "scripts",
  "tsconfig.json",
  "tsconfig.build.json",
  "package-lock.json",
];

/** The newest modification time of the files under a path, in ms. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

const mode = process.argv[2];
if (mode === "begin") {
  mkdirSync(dirname(begun), { recursive: true });
  writeFileSync(begun, String(Date.now()));
} else if (mode === "end") {
  renameSync(begun, stamp);
} else if (mode === "check") {
  const built = existsSync(stamp) ? Number(readFileSync(stamp, "utf8")) : 0;
  const latest = Math.max(...SOURCES.map((s) => newest(join(root, s))));
  process.exit(built > latest ? 0 : 1);
} else {
  console.error("usage: node scripts/build-stamp.mjs begin|end|check");
  process.exit(2);
}
