import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

// The ceiling for any proxy on this machine: a bare node:http pass-through (keep-alive pool, pipe
// both ways, no recording, no judging). `plantstore proxy` is measured against it and against direct.
const upstream = new URL(process.argv[2] ?? "http://127.0.0.1:4010");
const agent = new Agent({ keepAlive: true });
const server = createServer((req, res) => {
  const out = request(
    {
      hostname: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
      agent,
    },
    (incoming) => {
      res.writeHead(incoming.statusCode ?? 502, incoming.headers);
      incoming.pipe(res);
    },
  );
  out.on("error", () => res.destroy());
  req.pipe(out);
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
