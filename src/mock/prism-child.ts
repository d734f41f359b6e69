import { pathToFileURL } from "node:url";

// Runs Prism's own CLI in this process, as `prism <args>` would, and ends it when the parent's pipe
// closes: if the parent dies, even by SIGKILL, no Prism is left behind.
const [entry, ...args] = process.argv.slice(2);
if (entry === undefined) {
  process.stderr.write("usage: prism-child <prism entry> [args...]\n");
  process.exit(2);
}
// Two throws of Prism 5.14 end the whole mock mid-run, each caused by one request: its CLI log pipe
// (util/createServer.js, constructPrefix) on a log line it cannot name, and its multipart reader
// (parse-multipart-data) on a part with a Content-Type but no filename, as OpenAPI sends an object
// property. Those two are survived, said on stderr (the request concerned gets no answer, the others
// go on); any other error ends the process as before.
const SURVIVED: readonly [RegExp, string][] = [
  [/\bconstructPrefix\b/, "a Prism log line could not be printed"],
  [/parse-multipart-data/, "Prism could not read a multipart body, and leaves that request unanswered"],
];
process.on("uncaughtException", (error) => {
  const known = SURVIVED.find(([where]) => error instanceof TypeError && where.test(error.stack ?? ""));
  if (known !== undefined) {
    process.stderr.write(`plantstore: ${known[1]} (a Prism bug); the mock goes on\n`);
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
