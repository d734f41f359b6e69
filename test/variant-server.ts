import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Contract } from "../src/contract/index.js";
import { createMockEngine, type CoreRequest, type WireResponse } from "../src/server/index.js";
import { TOKEN } from "./helpers.js";

/** What a variant does instead of the reference answer: a different answer, or misbehaviour on the wire. */
export type Override =
  | WireResponse
  | { readonly wire: "hang" }
  | { readonly wire: "reset" }
  /** Every connection dropped and the port closed, as a crashed process leaves it. */
  | { readonly wire: "crash" }
  /** Every connection dropped, the port still open: a worker that died and was replaced at once. */
  | { readonly wire: "drop-all" }
  | { readonly wire: "short-body"; readonly answer: WireResponse }
  | { readonly wire: "raw"; readonly bytes: string };

/** A variant of the reference server: returns undefined to let the reference answer. */
export type Variant = (
  request: CoreRequest,
  body: any,
  reference: () => WireResponse,
  as: (r: CoreRequest) => WireResponse,
) => Override | undefined;

export interface VariantServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Parses a request body as plain JSON (lossy, as a careless server would); undefined when it is not JSON. */
export function lossyJson(body: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(body).toString("utf8"));
  } catch {
    return undefined;
  }
}

/** Starts the reference core behind a variant on 127.0.0.1, port 0. */
export async function startVariant(
  contract: Contract,
  variant: Variant,
  tokens: readonly string[] = [TOKEN],
  tls?: { key: Buffer; cert: Buffer },
): Promise<VariantServer> {
  const core = createMockEngine(contract, { tokens }).handle;
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const request: CoreRequest = {
        method: req.method ?? "GET",
        url: req.url ?? "/",
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      const override = variant(request, lossyJson(request.body), () => core(request), core) ?? core(request);
      if ("wire" in override) {
        switch (override.wire) {
          case "hang":
            return;
          case "reset":
            req.socket.destroy();
            return;
          case "crash":
            server.close();
            server.closeAllConnections();
            return;
          case "drop-all":
            server.closeAllConnections();
            return;
          case "short-body":
            res.writeHead(override.answer.status, {
              ...override.answer.headers,
              "content-length": String(Buffer.byteLength(override.answer.body) + 50),
            });
            res.write(override.answer.body);
            setTimeout(() => req.socket.destroy(), 20);
            return;
          case "raw":
            req.socket.end(override.bytes);
            return;
        }
      }
      res.writeHead(override.status, override.headers);
      // A variant may send bytes (a gzip body) as a latin1 string.
      res.end(
        (override as { latin1?: boolean }).latin1 === true ? Buffer.from(override.body, "latin1") : override.body,
      );
    });
  };
  const server = tls === undefined ? createServer(listener) : createHttpsServer(tls, listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls === undefined ? "http" : "https"}://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON answer, for variants. */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}): WireResponse => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: typeof body === "string" ? body : JSON.stringify(body),
});
