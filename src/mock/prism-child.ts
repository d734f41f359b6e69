import { pathToFileURL } from "node:url";

// Runs Prism's own CLI in this process, as `prism <args>` would, and ends it when the parent's pipe
// closes: if the parent dies, even by SIGKILL, no Prism is left behind.
const [entry, ...args] = process.argv.slice(2);
if (entry === undefined) {
  process.stderr.write("usage: prism-child <prism entry> [args...]\n");
  process.exit(2);
}
process.stdin.on("end", () => process.exit(0));
process.stdin.on("close", () => process.exit(0));
process.stdin.resume();
process.argv = [process.argv[0] as string, entry, ...args];
await import(pathToFileURL(entry).href);
