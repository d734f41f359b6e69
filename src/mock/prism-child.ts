import { pathToFileURL } from "node:url";

// Runs Prism's own CLI in this process, as `prism <args>` would, and ends it when the parent's pipe
// closes: if the parent dies, even by SIGKILL, no Prism is left behind.
const [entry, ...args] = process.argv.slice(2);
if (entry === undefined) {
  process.stderr.write("usage: prism-child <prism entry> [args...]\n");
  process.exit(2);
}
// Prism 5.14's CLI log pipe (util/createServer.js, constructPrefix) throws on a log line it cannot
// name, and the throw ends the whole mock mid-run: a request whose validation message Prism cannot
// log would kill the mock that should answer it. Only that throw is survived (the line is dropped,
// and said on stderr); any other error ends the process as before.
process.on("uncaughtException", (error) => {
  if (error instanceof TypeError && /\bconstructPrefix\b/.test(error.stack ?? "")) {
    process.stderr.write("plantstore: a Prism log line could not be printed (a Prism bug); the mock goes on\n");
    return;
  }
  process.stderr.write(`${error.stack ?? String(error)}\n`);
  process.exit(1);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.on("close", () => process.exit(0));
process.stdin.resume();
process.argv = [process.argv[0] as string, entry, ...args];
await import(pathToFileURL(entry).href);
