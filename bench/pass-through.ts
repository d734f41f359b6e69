import { Agent, createServer, request, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A bare node:http pass-through to `upstream` (keep-alive pool, pipe both ways, no recording), on a
 * free port, printing its URL. `observe`, when given, sees each request as it arrives (before its
 * body is forwarded) and gives what sees its answer as it arrives. It closes on SIGTERM, after `onStop`.
 */
export function startPassThrough(
  upstream: URL,
  observe?: (req: IncomingMessage) => (incoming: IncomingMessage) => void,
  onStop?: () => void,
): Server {
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req, res) => {
    const answered = observe?.(req);
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
        answered?.(incoming);
        incoming.pipe(res);
      },
    );
    out.on("error", () => res.destroy());
    req.pipe(out);
  });
  server.listen(0, "127.0.0.1", () => {
    process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  });
  process.on("SIGTERM", () => {
    onStop?.();
    server.close(() => process.exit(0));
  });
  return server;
}
