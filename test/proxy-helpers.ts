import { createServer, request, type IncomingMessage, type RequestListener } from "node:http";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";

export interface Closable {
  readonly url: string;
  close(): Promise<void>;
}

/** A plain node:http upstream on 127.0.0.1, port 0; close() drops its connections. */
export async function httpUpstream(listener: RequestListener): Promise<Closable & { connections(): number }> {
  const server = createServer(listener);
  let connections = 0;
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** How many TCP connections the upstream has accepted so far. */
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A raw TCP upstream that reads each request's head and Content-Length body, then hands the socket
 * to `misbehave`, which writes whatever bytes it likes (or none).
 */
export async function rawUpstream(misbehave: (socket: Socket, head: string) => void): Promise<Closable> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
    let buffered = Buffer.alloc(0);
    socket.on("data", (c: Buffer) => {
      buffered = Buffer.concat([buffered, c]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = buffered.subarray(0, end).toString("latin1");
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.subarray(end + 4 + length);
      misbehave(socket, head);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A URL where nothing listens (a port that was just free). */
export async function closedUrl(): Promise<string> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export interface Sent {
  readonly status: number | undefined;
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  /** Set when the answer broke off (reset, truncated); the exchange still resolves. */
  readonly error: string | undefined;
}

export interface SendOptions {
  readonly method?: string;
  /** Raw header list, names as written. */
  readonly headers?: readonly string[];
  readonly body?: Buffer | string;
  /** Called with each chunk of the answer as it arrives. */
  readonly onChunk?: (chunk: Buffer, response: IncomingMessage) => void;
}

/** One request over a fresh connection with node:http; resolves with what came back, never rejects. */
export function send(url: string, options: SendOptions = {}): Promise<Sent> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let status: number | undefined;
    let rawHeaders: string[] = [];
    let done = false;
    const finish = (error: string | undefined): void => {
      if (done) return;
      done = true;
      resolve({ status, rawHeaders, body: Buffer.concat(chunks), error });
    };
    // A raw header list is sent as it is: Node adds neither Host nor a length to it.
    const headers = [...(options.headers ?? [])];
    const has = (name: string): boolean => rawValues(headers, name).length > 0;
    if (!has("host")) headers.unshift("Host", new URL(url).host);
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    if (body !== undefined && !has("content-length") && !has("transfer-encoding"))
      headers.push("Content-Length", String(body.length));
    const req = request(url, {
      method: options.method ?? "GET",
      headers: headers as unknown as string[],
      agent: false,
    });
    req.on("response", (res) => {
      status = res.statusCode;
      rawHeaders = res.rawHeaders;
      res.on("data", (c: Buffer) => {
        chunks.push(c);
        options.onChunk?.(c, res);
      });
      res.on("end", () => finish(res.complete ? undefined : "incomplete"));
      res.on("error", (e) => finish(e.message));
      res.on("close", () => finish(res.complete ? undefined : "closed before the end"));
    });
    req.on("error", (e) => finish(e.message));
    req.end(body);
  });
}

/** A header's values from a raw list, by name in any case. */
export function rawValues(raw: readonly string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name.toLowerCase()) out.push(raw[i + 1]!);
  return out;
}
