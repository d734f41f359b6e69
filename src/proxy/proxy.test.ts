import { createHash, randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../server/index.js";
import { kitContract, TOKEN } from "../../test/helpers.js";
import { httpUpstream, rawValues, send } from "../../test/proxy-helpers.js";
import { json, startVariant } from "../../test/variant-server.js";
import { startProxy, type RunningProxy } from "./start-proxy.js";
import type { ExchangeRecord, ProxyEvent } from "./types.js";

const contract = await kitContract();
const auth = ["Authorization", `Bearer ${TOKEN}`];
const jsonType = ["Content-Type", "application/json"];
const sha256 = (b: Buffer): string => createHash("sha256").update(b).digest("hex");

/** Starts a proxy in front of `target` for one test; the caller stops it (in finally). */
function proxyTo(
  target: string,
  events: ProxyEvent[] = [],
  extra: Partial<Parameters<typeof startProxy>[0]> = {},
): Promise<RunningProxy> {
  return startProxy({ target, contract, port: 0, ...extra }, (e) => events.push(e));
}

describe("the proxy in front of the reference server", () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ contract, port: 0, tokens: [TOKEN] });
  });
  afterAll(async () => {
    await server.close(100);
  });

  it("answers a client whose request head is too slow with 408, and closes idle connections", async () => {
    const proxy = await proxyTo(server.url, [], { headersTimeoutMs: 300, keepAliveTimeoutMs: 300 });
    try {
      const { connect } = await import("node:net");
      const port = Number(new URL(proxy.url).port);
      const heard = (payload: string): Promise<string> =>
        new Promise((resolve) => {
          const socket = connect(port, "127.0.0.1");
          const chunks: Buffer[] = [];
          socket.on("data", (c: Buffer) => chunks.push(c));
          socket.on("error", () => undefined);
          socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
          socket.write(payload);
        });
      // Half a head, then nothing: 408, then the connection ends (it would hang for 60 s by Node's default).
      expect(await heard("POST /plants HTTP/1.1\r\nHost: x\r\n")).toMatch(/^HTTP\/1.1 408 /);
      // A whole exchange, then an idle keep-alive connection: closed by the proxy.
      expect(await heard("GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n")).toMatch(/^HTTP\/1.1 404 /);
    } finally {
      await proxy.stop();
    }
  });

  it("passes the upstream's 413 for a 5 MB body from fetch through every time, and blames no one", async () => {
    const proxy = await proxyTo(server.url);
    let stopped = false;
    try {
      const body = JSON.stringify({ id: 1, name: "x".repeat(5 * 1024 * 1024) });
      const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
      const statuses: (number | string)[] = [];
      for (let i = 0; i < 10; i++)
        statuses.push(
          await fetch(`${proxy.url}/plants`, { method: "POST", headers, body }).then(
            async (r) => (await r.text(), r.status),
            (e: Error & { cause?: { code?: string } }) => e.cause?.code ?? e.message,
          ),
        );
      expect(statuses).toEqual(Array(10).fill(413));
      const { summary } = await proxy.stop();
      stopped = true;
      expect(summary).toMatchObject({ exchanges: 10, serverViolations: 0, clientViolations: 0, exitCode: 0 });
    } finally {
      if (!stopped) await proxy.stop();
    }
  });

  it("passes creates through unchanged, reports invalid requests as the client's, and passes", async () => {
    const events: ProxyEvent[] = [];
    const proxy = await proxyTo(server.url, events);
    try {
      const valid = await send(`${proxy.url}/plants`, {
        method: "POST",
        headers: [...auth, ...jsonType],
        body: '{"id":9007199254740993,"name":"Fern","tag":"f"}',
      });
      expect(valid.status).toBe(200);
      expect(JSON.parse(valid.body.toString())).toEqual({ name: "Fern", tag: "f" });
      expect(server.store.size).toBe(1);

      // Invalid requests: the same answer through the proxy as directly (the reference server is stateless for them).
      const invalid: [string, string[]][] = [
        ['{"id":1}', jsonType],
        ['{"id":1,"name":"x"}', ["Content-Type", "text/plain"]],
        ['{"id":1,"name":"x"}', ["Content-Type", "application/json; charset=latin1"]],
        ["{not json", jsonType],
      ];
      for (const [body, type] of invalid) {
        const through = await send(`${proxy.url}/plants`, { method: "POST", headers: [...auth, ...type], body });
        const direct = await send(`${server.url}/plants`, { method: "POST", headers: [...auth, ...type], body });
        expect(through.status).toBe(400);
        expect(through.body.equals(direct.body)).toBe(true);
      }
      const unauthorised = await send(`${proxy.url}/plants`, {
        method: "POST",
        headers: jsonType,
        body: '{"id":2,"name":"x"}',
      });
      expect(unauthorised.status).toBe(401);
      const preflight = await send(`${proxy.url}/plants`, {
        method: "OPTIONS",
        headers: ["Origin", "http://app.test", "Access-Control-Request-Method", "POST"],
      });
      expect(preflight.status).toBe(204);
      const elsewhere = await send(`${proxy.url}/elsewhere`);
      expect(elsewhere.status).toBe(404);

      const { summary, exchanges } = await proxy.stop();
      expect(summary.exitCode).toBe(0);
      expect(summary.exchanges).toBe(8);
      expect(summary.serverViolations).toBe(0);
      expect(exchanges.map((e) => e.index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(exchanges[0]).toMatchObject({
        method: "POST",
        path: "/plants",
        operation: "createPlant",
        status: 200,
        client: "pass",
        server: "pass",
      });
      const clientChecks = (e: ExchangeRecord) => e.findings.filter((f) => f.side === "client").map((f) => f.check);
      for (const e of exchanges.slice(1, 5)) {
        expect(e).toMatchObject({ client: "fail", server: "pass", status: 400 });
        expect(clientChecks(e)).toContain("request.body");
        expect(e.findings.every((f) => !f.counts)).toBe(true);
        expect(e.curl).toContain('"authorization: Bearer ${PLANTSTORE_TOKEN}"');
      }
      expect(exchanges[3]!.findings.map((f) => f.message).join()).toContain('charset "latin1" is not UTF-8');
      // No token is not the proxy's to judge; the 401 is undocumented, where the contract is silent: a note.
      expect(exchanges[5]).toMatchObject({ client: "pass", server: "pass", status: 401 });
      expect(exchanges[5]!.findings.map((f) => [f.check, f.severity])).toEqual([["status.undocumented", "note"]]);
      expect(exchanges[6]).toMatchObject({ client: "error", server: "error", status: 204 });
      expect(exchanges[7]).toMatchObject({ client: "fail", server: "error", status: 404 });
      expect(clientChecks(exchanges[7]!)).toEqual(["request.path"]);
      expect(events.filter((e) => e.type === "exchange-finished")).toHaveLength(8);
      expect(events.at(-1)?.type).toBe("proxy-stopped");
      expect(JSON.stringify(exchanges)).not.toContain(TOKEN);
    } finally {
      await proxy.stop();
    }
  });

  it("stops by itself after --max-exchanges, and exits 2 when nothing came through", async () => {
    const events: ProxyEvent[] = [];
    const proxy = await proxyTo(server.url, events, { maxExchanges: 2 });
    for (const id of [11, 12])
      await send(`${proxy.url}/plants`, {
        method: "POST",
        headers: [...auth, ...jsonType],
        body: `{"id":${id},"name":"x"}`,
      });
    const { summary } = await proxy.done;
    expect(summary).toMatchObject({ stoppedBy: "max-exchanges", exchanges: 2, judged: 2, exitCode: 0 });
    // The exchange that reached the count is finished: none is in flight when the proxy stops.
    expect(events.find((e) => e.type === "proxy-stopping")).toMatchObject({ reason: "max-exchanges", inFlight: 0 });

    const idle = await proxyTo(server.url);
    const nothing = await idle.stop();
    expect(nothing.summary.exitCode).toBe(2);
    expect(nothing.summary.runError).toContain("nothing to judge");
  });
});

describe("the proxy in front of faulty servers", () => {
  it.each([
    ["answers 200 with a body missing name", "response.schema", () => json(200, { tag: "x" })],
    ["answers 500 to a valid create", "status.no-5xx", () => json(500, { error: 500, message: "boom" })],
    [
      "answers 200 as text/plain",
      "response.media-type",
      () => ({ status: 200, headers: { "content-type": "text/plain" }, body: '{"name":"x"}' }),
    ],
    [
      "answers 400 with a body that is not JSON",
      "response.json",
      () => ({ status: 400, headers: { "content-type": "application/json" }, body: "nope" }),
    ],
  ])("reports a server that %s (%s) and fails the run, passing its answer through", async (_name, check, answer) => {
    const faulty = await startVariant(contract, (r) => (r.method === "POST" ? answer() : undefined));
    const proxy = await proxyTo(faulty.url);
    try {
      const res = await send(`${proxy.url}/plants`, {
        method: "POST",
        headers: [...auth, ...jsonType],
        body: '{"id":1,"name":"x"}',
      });
      expect(res.body.toString()).toBe(answer().body);
      const { summary, exchanges } = await proxy.stop();
      expect(summary.exitCode).toBe(1);
      expect(summary.serverViolations).toBeGreaterThan(0);
      expect(exchanges[0]).toMatchObject({ client: "pass", server: "fail" });
      expect(exchanges[0]!.findings.find((f) => f.check === check)).toMatchObject({
        side: "server",
        severity: "failure",
        counts: true,
      });
    } finally {
      await proxy.stop();
      await faulty.close();
    }
  });

  it("counts client violations only with failOnClient, and an undocumented 2xx only at the level documented-statuses (or strict)", async () => {
    const odd = await startVariant(contract, (r, _b, reference) =>
      r.url === "/plants" && reference().status === 200 ? json(201, { name: "x" }) : undefined,
    );
    try {
      let id = 100;
      for (const [options, exitCode] of [
        [{}, 0],
        [{ failOnClient: true }, 1],
        [{ strict: true }, 1],
        [{ levels: ["documented-statuses"] }, 1],
        [{ levels: ["http-rfc"] }, 0],
      ] as const) {
        const proxy = await proxyTo(odd.url, [], options);
        await send(`${proxy.url}/plants`, { method: "POST", headers: [...auth, ...jsonType], body: "{}" });
        await send(`${proxy.url}/plants`, {
          method: "POST",
          headers: [...auth, ...jsonType],
          body: `{"id":${id++},"name":"x"}`,
        });
        const { summary, exchanges } = await proxy.stop();
        expect(summary.exitCode, JSON.stringify(options)).toBe(exitCode);
        expect(exchanges[1]!.findings.map((f) => [f.check, f.severity, f.level])).toEqual([
          ["status.undocumented", "warning", "documented-statuses"],
        ]);
      }
    } finally {
      await odd.close();
    }
  });
});

describe("lifecycle and connections", () => {
  it("on stop, refuses new connections, lets the exchange in flight finish, and judges it", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    const upstream = await httpUpstream((req, res) => {
      req.resume();
      arrived();
      void released.then(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"name":"late"}');
      });
    });
    const events: ProxyEvent[] = [];
    const proxy = await proxyTo(upstream.url, events);
    try {
      const slow = send(`${proxy.url}/plants`, {
        method: "POST",
        headers: [...auth, ...jsonType],
        body: '{"id":1,"name":"late"}',
      });
      await inFlight;
      const stopping = proxy.stop("SIGTERM");
      expect(events.find((e) => e.type === "proxy-stopping")).toMatchObject({ reason: "SIGTERM", inFlight: 1 });
      expect((await send(`${proxy.url}/plants`)).error).toContain("ECONNREFUSED");
      release();
      expect((await slow).body.toString()).toBe('{"name":"late"}');
      const { summary, exchanges } = await stopping;
      expect(summary).toMatchObject({ stoppedBy: "SIGTERM", exchanges: 1, judged: 1, exitCode: 0 });
      expect(exchanges[0]).toMatchObject({ status: 200, client: "pass", server: "pass" });
    } finally {
      release();
      await proxy.stop();
      await upstream.close();
    }
  });

  it("keeps connections alive on both hops: one client connection, one upstream connection", async () => {
    const upstream = await httpUpstream((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"name":"x"}');
    });
    const proxy = await proxyTo(upstream.url);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let clientConnections = 0;
    try {
      const once = () =>
        new Promise<number>((resolve, reject) => {
          const req = request(`${proxy.url}/plants`, {
            method: "POST",
            agent,
            headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          });
          req.on("socket", (socket) => {
            if (!(socket as { counted?: boolean }).counted) {
              (socket as { counted?: boolean }).counted = true;
              clientConnections++;
            }
          });
          req.on("response", (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode!));
          });
          req.on("error", reject);
          req.end('{"id":1,"name":"x"}');
        });
      expect([await once(), await once(), await once()]).toEqual([200, 200, 200]);
      expect(clientConnections).toBe(1);
      expect(upstream.connections()).toBe(1);
    } finally {
      agent.destroy();
      await proxy.stop();
      await upstream.close();
    }
  });
});

describe("byte-identical pass-through", () => {
  it("streams a large chunked answer and upload unbuffered, headers unchanged but Host", async () => {
    const size = 3 * 1024 * 1024;
    const answer = randomBytes(size);
    const upload = randomBytes(2 * 1024 * 1024 + 17);
    let firstAnswerChunkSeen!: () => void;
    const clientGotFirst = new Promise<void>((resolve) => (firstAnswerChunkSeen = resolve));
    let firstUploadChunkSeen!: () => void;
    const upstreamGotFirst = new Promise<void>((resolve) => (firstUploadChunkSeen = resolve));
    let seen: { rawHeaders: string[]; sha: string; bytes: number } | undefined;
    const upstream = await httpUpstream((req, res) => {
      const hash = createHash("sha256");
      let bytes = 0;
      req.on("data", (c: Buffer) => {
        if (bytes === 0) firstUploadChunkSeen();
        bytes += c.length;
        hash.update(c);
      });
      req.on("end", async () => {
        seen = { rawHeaders: req.rawHeaders, sha: hash.digest("hex"), bytes };
        // No Date from the upstream, so a Date at the client would be one the proxy added.
        res.sendDate = false;
        res.writeHead(200, "Fine", [
          "Content-Type",
          "application/octet-stream",
          "X-Mixed-Case",
          "One",
          "set-cookie",
          "a=1",
          "Set-Cookie",
          "b=2",
        ]);
        // The rest is sent only once the client has the first part: a proxy that buffered would never get it.
        res.write(answer.subarray(0, 64 * 1024));
        await clientGotFirst;
        for (let at = 64 * 1024; at < size; at += 256 * 1024)
          res.write(answer.subarray(at, Math.min(size, at + 256 * 1024)));
        res.end();
      });
    });
    const proxy = await proxyTo(upstream.url);
    try {
      const received = await new Promise<{ raw: string[]; body: Buffer; status: number; message: string }>(
        (resolve, reject) => {
          const req = request(`${proxy.url}/stream?q=1`, {
            method: "PUT",
            agent: false,
            headers: [
              "X-Trace",
              "abc",
              "x-trace",
              "def",
              "Transfer-Encoding",
              "chunked",
              "Host",
              "client.example",
            ] as unknown as string[],
          });
          req.on("response", (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => {
              if (chunks.length === 0) firstAnswerChunkSeen();
              chunks.push(c);
            });
            res.on("end", () =>
              resolve({
                raw: res.rawHeaders,
                body: Buffer.concat(chunks),
                status: res.statusCode!,
                message: res.statusMessage!,
              }),
            );
          });
          req.on("error", reject);
          // The rest of the upload follows only once the upstream has its first part.
          req.write(upload.subarray(0, 1024));
          void upstreamGotFirst.then(() => req.end(upload.subarray(1024)));
        },
      );
      expect(received.status).toBe(200);
      expect(received.message).toBe("Fine");
      expect(sha256(received.body)).toBe(sha256(answer));
      expect(seen!.sha).toBe(sha256(upload));
      // End-to-end fields arrive as written, in order and case, repeats kept; Host names the upstream.
      const upstreamHost = new URL(upstream.url).host;
      expect(seen!.rawHeaders.slice(0, 6)).toEqual([
        "X-Trace",
        "abc",
        "x-trace",
        "def",
        "Transfer-Encoding",
        "chunked",
      ]);
      expect(rawValues(seen!.rawHeaders, "host")).toEqual([upstreamHost]);
      expect(received.raw.slice(0, 8)).toEqual([
        "Content-Type",
        "application/octet-stream",
        "X-Mixed-Case",
        "One",
        "set-cookie",
        "a=1",
        "Set-Cookie",
        "b=2",
      ]);
      expect(rawValues(received.raw, "transfer-encoding")).toEqual(["chunked"]);
      // The proxy adds no field of its own beyond the connection's (RFC 9112 section 9.6).
      const own = new Set([
        "content-type",
        "x-mixed-case",
        "set-cookie",
        "transfer-encoding",
        "connection",
        "keep-alive",
      ]);
      expect(received.raw.filter((n, i) => i % 2 === 0 && !own.has(n.toLowerCase()))).toEqual([]);
      const { exchanges } = await proxy.stop();
      expect(exchanges[0]).toMatchObject({ requestBytes: upload.length, responseBytes: size, server: "error" });
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });

  it("forwards gzip as bytes, judged decoded; bodies over --max-body whole, not judged", async () => {
    const plant = gzipSync(Buffer.from('{"name":"Fern"}'));
    const big = Buffer.from(JSON.stringify({ name: "x".repeat(5000) }));
    const upstream = await httpUpstream((req, res) => {
      req.resume();
      req.on("end", () => {
        const body = req.headers["x-want"] === "big" ? big : plant;
        res.writeHead(200, {
          "content-type": "application/json",
          ...(body === plant ? { "content-encoding": "gzip" } : {}),
          "content-length": body.length,
        });
        res.end(body);
      });
    });
    const proxy = await proxyTo(upstream.url, [], { maxBodyBytes: 1024 });
    try {
      const small = await send(`${proxy.url}/plants`, {
        method: "POST",
        headers: [...auth, ...jsonType],
        body: '{"id":1,"name":"Fern"}',
      });
      expect(small.body.equals(plant)).toBe(true);
      const large = await send(`${proxy.url}/plants`, {
        method: "POST",
        headers: [...auth, ...jsonType, "X-Want", "big"],
        body: JSON.stringify({ id: 2, name: "y".repeat(2000) }),
      });
      expect(large.body.equals(big)).toBe(true);
      const { summary, exchanges } = await proxy.stop();
      expect(summary.exitCode).toBe(0);
      expect(exchanges[0]).toMatchObject({ client: "pass", server: "pass", findings: [] });
      expect(exchanges[1]!.findings.map((f) => [f.side, f.check, f.severity])).toEqual([
        ["client", "proxy.not-judged", "note"],
        ["server", "proxy.not-judged", "note"],
      ]);
      expect(exchanges[1]!.findings[1]!.message).toContain("over --max-body");
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });
});

describe("a long session", () => {
  it("keeps a bounded number of exchanges, the failing ones among them, and counts every one", async () => {
    const server = await startReferenceServer({ contract, port: 0, tokens: [TOKEN] });
    const proxy = await proxyTo(server.url, [], { keepExchanges: 5, failOnClient: true });
    let stopped = false;
    try {
      const post = (body: string) =>
        send(`${proxy.url}/plants`, { method: "POST", headers: [...auth, ...jsonType], body });
      for (let i = 0; i < 12; i++) await post(`{"id":${1000 + i},"name":"p${i}"}`);
      // Requests the contract refuses (no name): counted with --fail-on-client, so kept past the first five.
      for (let i = 0; i < 3; i++) await post(`{"id":${2000 + i}}`);
      const { summary, exchanges } = await proxy.stop();
      stopped = true;
      expect(summary).toMatchObject({ exchanges: 15, omitted: 7, clientViolations: 3, exitCode: 1 });
      expect(exchanges.map((e) => e.index)).toEqual([1, 2, 3, 4, 5, 13, 14, 15]);
    } finally {
      if (!stopped) await proxy.stop();
      await server.close(100);
    }
  });
});
