import { AsyncLocalStorage } from "node:async_hooks";
import { Server, type ServerResponse } from "node:http";
import { pathToFileURL } from "node:url";

// Runs Prism's own CLI in this process, as `prism <args>` would, and ends it when the parent's pipe
// closes: if the parent dies, even by SIGKILL, no Prism is left behind.
const [entry, ...args] = process.argv.slice(2);
if (entry === undefined) {
  process.stderr.write("usage: prism-child <prism entry> [args...]\n");
  process.exit(2);
}
// Four throws of Prism 5.14 end the whole mock mid-run, each caused by one request: its CLI log pipe
// (util/createServer.js, constructPrefix) on a log line it cannot name; its multipart reader
// (parse-multipart-data) on a part with a filename but no Content-Type; its parameter readers
// (validator/deserializers) on a null value, as the header Prism generates for a response header whose
// schema is an array; and the media type parser (content-type) on a document's content key that is no
// media type, as `*`, when the request's Accept matches it. Those four are survived, said on stderr;
// any other error ends the process as before. The last three break off Prism's handling of the request
// (its server does not await that work), so the request is answered here, 500 with a problem+json,
// when it has no answer yet.
const SURVIVED: readonly { where: RegExp; what: string; answer: boolean }[] = [
  { where: /\bconstructPrefix\b/, what: "a Prism log line could not be printed", answer: false },
  { where: /parse-multipart-data/, what: "Prism could not read a multipart body", answer: true },
  { where: /validator[\\/]deserializers[\\/]/, what: "Prism could not read a parameter or header value", answer: true },
  { where: /[\\/]content-type[\\/]index\.js:/, what: "Prism could not parse a media type", answer: true },
];

// The request each piece of Prism's work is for, so that a throw can be traced back to it.
const handling = new AsyncLocalStorage<ServerResponse>();
const emit: (this: Server, event: string, ...rest: unknown[]) => boolean = Server.prototype.emit;
Server.prototype.emit = function (this: Server, event: string, ...rest: unknown[]): boolean {
  if (event !== "request") return emit.call(this, event, ...rest);
  const response = rest[1] as ServerResponse;
  return handling.run(response, () => emit.call(this, event, ...rest));
};

function answer500(response: ServerResponse, what: string): boolean {
  if (response.headersSent || response.writableEnded) return false;
  const body = JSON.stringify({
    type: "https://stoplight.io/prism/errors#UNKNOWN",
    title: "Prism failed on this request",
    status: 500,
    detail: `${what} (a Prism bug); plantstore answered for it, and the mock goes on`,
  });
  response.writeHead(500, { "content-type": "application/problem+json", "content-length": Buffer.byteLength(body) });
  response.end(body);
  return true;
}

// Unhandled rejections come here too (Node's default), in the async context of the rejected work.
process.on("uncaughtException", (error) => {
  const known = SURVIVED.find(({ where }) => error instanceof TypeError && where.test(error.stack ?? ""));
  if (known !== undefined) {
    const response = known.answer ? handling.getStore() : undefined;
    const answered = response !== undefined && answer500(response, known.what);
    const outcome = answered ? "that request is answered 500" : "that request may get no answer";
    process.stderr.write(`plantstore: ${known.what} (a Prism bug); ${outcome}, the mock goes on\n`);
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
