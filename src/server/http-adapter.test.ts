import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { jsonHeaders, kitContract, storedPlant, TOKEN } from "../../test/helpers.js";
import { startReferenceServer, type ReferenceServer } from "./index.js";
import { discardCap } from "./http-adapter.js";
import { REQUEST_LINE_PARTS, type RequestLog } from "./request-line.js";

const contract = await kitContract();
let server: ReferenceServer | undefined;
afterEach(async () => {
  await server?.close(100);
  server = undefined;
});

const start = async (config: Parameters<typeof startReferenceServer>[0] = {}): Promise<ReferenceServer> => {
  server = await startReferenceServer({ contract, port: 0, tokens: [TOKEN], ...config });
  return server;
};

/** Sends raw bytes and collects everything the server writes until it closes or goes quiet. */
function raw(port: number, payload: string | Buffer, quietMs = 3_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let timer = setTimeout(() => socket.destroy(), quietMs);
    socket.on("data", (c) => {
      chunks.push(c);
      clearTimeout(timer);
      timer = setTimeout(() => socket.destroy(), 300);
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    socket.write(payload);
  });
}

const bodyOf = (response: string): any => JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4));

describe("the reference server over real HTTP", () => {
  it("creates a plant: 200, application/json, exact Content-Length, one log line without the token", async () => {
    const lines: string[] = [];
    const s = await start({ log: (l) => lines.push(l) });
    const res = await fetch(`${s.url}/plants?secret=q`, {
      method: "POST",
      headers: jsonHeaders(),
      body: '{"id":9223372036854775807,"name":"Fern 🌿"}',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const text = await res.text();
    expect(res.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(JSON.parse(text)).toEqual({ name: "Fern 🌿" });
    expect(storedPlant(s.store, "9223372036854775807")).toEqual({ name: "Fern 🌿" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ POST \/plants 200 \d+\.\dms$/);
    expect(lines.join("\n")).not.toContain(TOKEN);
    expect(lines.join("\n")).not.toContain("secret");
  });

  it("gives a log that takes a line's parts those parts, not the text", async () => {
    const parts: unknown[][] = [];
    const texts: string[] = [];
    const log: RequestLog = Object.assign((line: string) => texts.push(line), {
      [REQUEST_LINE_PARTS]: (...p: unknown[]) => void parts.push(p),
    });
    const s = await start({ log });
    await fetch(`${s.url}/plants?secret=q`, { method: "POST", headers: jsonHeaders(), body: '{"id":5,"name":"a"}' });
    await fetch(`${s.url}/plants`, { method: "POST", headers: jsonHeaders(), body: '{"id":5,"name":"a"}' });
    expect(texts).toEqual([]);
    expect(parts.map(([method, path, status]) => [method, path, status])).toEqual([
      ["POST", "/plants", 200],
      ["POST", "/plants", 409],
    ]);
    for (const [, , , tenths, reason] of parts) {
      expect(Number.isSafeInteger(tenths) && (tenths as number) >= 0).toBe(true);
      expect(reason).toBeUndefined();
    }
  });

  it("refuses a declared oversized body with 413 at once, throws the rest away, and serves the next request", async () => {
    const s = await start({ maxBodyBytes: 100 });
    const head = `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json`;
    const next = `GET /nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
    const response = await raw(s.port, `${head}\r\nContent-Length: 5000\r\n\r\n${"x".repeat(5000)}${next}`);
    expect(response).toMatch(/^HTTP\/1.1 413 /);
    expect(response.split("HTTP/1.1 ").map((r) => r.slice(0, 3))).toEqual(["", "413", "404"]);
    expect(s.store.size).toBe(0);
  });

  it("resets a connection whose refused body goes on past the discard cap (16 MiB here)", async () => {
    const s = await start({ maxBodyBytes: 100 });
    const head = `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json`;
    const big = Buffer.alloc(discardCap(100) + 4 * 1024 * 1024, 0x78);
    const response = await raw(
      s.port,
      Buffer.concat([Buffer.from(`${head}\r\nContent-Length: ${big.length}\r\n\r\n`), big]),
    );
    expect(response).toMatch(/^HTTP\/1.1 413 /);
    expect(bodyOf(response)).toMatchObject({ error: 413, code: "PS_BODY_TOO_LARGE" });
  });

  it("answers a 5 MB body from fetch with its 413 every time, never a reset", async () => {
    const s = await start();
    const body = JSON.stringify({ id: 1, name: "x".repeat(5 * 1024 * 1024) });
    const statuses: (number | string)[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push(
        await fetch(`${s.url}/plants`, { method: "POST", headers: jsonHeaders(), body }).then(
          async (r) => (await r.text(), r.status),
          (e: Error & { cause?: { code?: string } }) => e.cause?.code ?? e.message,
        ),
      );
    expect(statuses).toEqual(Array(10).fill(413));
  });

  it("refuses a chunked body once it passes the limit", async () => {
    const s = await start({ maxBodyBytes: 100 });
    const chunk = "x".repeat(80);
    const chunked = `50\r\n${chunk}\r\n50\r\n${chunk}\r\n`;
    const response = await raw(
      s.port,
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunked}`,
    );
    expect(response).toMatch(/^HTTP\/1.1 413 /);
    expect(bodyOf(response).code).toBe("PS_BODY_TOO_LARGE");
  });

  it("refuses an oversized body announced with Expect: 100-continue without inviting it first", async () => {
    const s = await start({ maxBodyBytes: 100 });
    const response = await raw(
      s.port,
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect(response).toMatch(/^HTTP\/1.1 413 /);
    expect(response).not.toContain("100 Continue");
  });

  it("invites a body of acceptable size with 100 Continue and answers it", async () => {
    const s = await start();
    const body = '{"id":77,"name":"continued"}';
    const response = await raw(
      s.port,
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(response).toMatch(/^HTTP\/1.1 100 Continue/);
    expect(response).toContain("HTTP/1.1 200 OK");
    expect(storedPlant(s.store, "77")).toEqual({ name: "continued" });
  });

  it("logs an absolute-form target by its path only, without user info", async () => {
    const lines: string[] = [];
    const s = await start({ log: (l) => lines.push(l) });
    const body = '{"id":78,"name":"absolute"}';
    const response = await raw(
      s.port,
      `POST http://user:secretpw@x/plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(response).toMatch(/^HTTP\/1.1 200 /);
    expect(lines.join("\n")).toContain(" POST /plants 200 ");
    expect(lines.join("\n")).not.toContain("secretpw");
  });

  it("answers malformed HTTP with a JSON 400", async () => {
    const s = await start();
    const response = await raw(s.port, "THIS IS NOT HTTP\r\n\r\n");
    expect(response).toMatch(/^HTTP\/1.1 400 /);
    expect(bodyOf(response)).toMatchObject({ error: 400, code: "PS_MALFORMED_HTTP" });
  });

  it("answers oversized headers with a JSON 431", async () => {
    const s = await start();
    const response = await raw(s.port, `POST /plants HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(70_000)}\r\n\r\n`);
    expect(response).toMatch(/^HTTP\/1.1 431 /);
    expect(bodyOf(response).code).toBe("PS_HEADERS_TOO_LARGE");
  });

  it("times out a client that sends its headers too slowly (slow loris) with a JSON 408", async () => {
    const s = await start({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const response = await raw(s.port, "POST /plants HTTP/1.1\r\nHost: x\r\n", 5_000);
    expect(response).toMatch(/^HTTP\/1.1 408 /);
    expect(bodyOf(response).code).toBe("PS_REQUEST_TIMEOUT");
  });

  it("answers a CORS preflight from a browser origin", async () => {
    const s = await start();
    const res = await fetch(`${s.url}/plants`, {
      method: "OPTIONS",
      headers: {
        origin: "http://app.test",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-headers")).toContain("authorization");
  });

  it("lets a request in flight finish during a graceful shutdown", async () => {
    const s = await start({ delayMs: 300 });
    // Close only once the server has the request (not after a guessed pause, which a busy CI could outrun).
    const received = new Promise((r) => s.server.once("request", r));
    const inFlight = fetch(`${s.url}/plants`, { method: "POST", headers: jsonHeaders(), body: '{"id":1,"name":"a"}' });
    await received;
    const closed = s.close(5_000);
    const res = await inFlight;
    expect(res.status).toBe(200);
    await closed;
    server = undefined;
    await expect(fetch(`${s.url}/plants`, { method: "POST" })).rejects.toThrow();
  });
});

describe("the adapter around an engine that fails", () => {
  it("sends the engine's own 500 PS_INTERNAL for a failure inside it, and the failure is told, never a crash", async () => {
    const { startHttpServer, DEFAULT_HTTP_OPTIONS, createEngine } = await import("./index.js");
    const { loadContract } = await import("../contract/index.js");
    const { DEFAULT_SPEC } = await import("../paths.js");
    const failures: unknown[] = [];
    const engine = createEngine(await loadContract(DEFAULT_SPEC), {
      credentials: { tokens: ["t0ken"], basic: [] },
      cors: { origins: ["*"] },
      maxItems: 10,
      onChange: () => {
        throw new Error("a bug");
      },
      onFailure: (error) => failures.push(error),
    });
    const running = await startHttpServer(engine.handle, { ...DEFAULT_HTTP_OPTIONS, port: 0 });
    try {
      const res = await fetch(`${running.url}/plants`, {
        method: "POST",
        headers: { authorization: "Bearer t0ken", "content-type": "application/json", origin: "https://app.test" },
        body: JSON.stringify({ id: 1, name: "Fern" }),
      });
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({ error: 500, code: "PS_INTERNAL" });
      // A page can read the 500: the engine answered it, CORS headers and all.
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(String(failures[0])).toContain("a bug");
      // The server keeps answering.
      const again = await fetch(`${running.url}/nowhere`);
      expect(again.status).toBe(404);
    } finally {
      await running.close(100);
    }
  });
});

describe("a CONNECT request", () => {
  it("gets 405 with Allow, from the server and from the proxy in front of it, never a silent close", async () => {
    const { startProxy } = await import("../proxy/index.js");
    const contract = await kitContract();
    const reference = await startReferenceServer({ contract, port: 0 });
    const proxy = await startProxy({ target: reference.url, contract, port: 0 });
    const raw = (url: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const { hostname, port } = new URL(url);
        const socket = connect(Number(port), hostname, () =>
          socket.write("CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n"),
        );
        let text = "";
        socket.on("data", (chunk) => (text += chunk.toString("latin1")));
        socket.on("end", () => resolve(text));
        socket.on("error", reject);
      });
    try {
      for (const url of [reference.url, proxy.url]) {
        const answer = await raw(url);
        expect(answer, url).toMatch(/^HTTP\/1\.1 405 /);
        expect(answer.toLowerCase(), url).toContain("allow: get, head, post, put, patch, delete, options");
      }
    } finally {
      await proxy.stop();
      await reference.close(100);
    }
  });
});
