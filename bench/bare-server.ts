import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

// The baseline: a bare node:http server that reads the body, parses it and answers, nothing more
// (no validation, no auth, no store). What the reference server is measured against.
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    let status = 200;
    let body: string;
    try {
      const plant = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { name?: unknown; tag?: unknown };
      body = JSON.stringify({ name: plant.name, tag: plant.tag });
    } catch {
      status = 400;
      body = '{"error":400,"message":"bad json"}';
    }
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(Number(process.argv[2] ?? 0), "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
