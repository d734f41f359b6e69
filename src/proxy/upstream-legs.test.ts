import { createHash, randomBytes } from "node:crypto";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { kitContract } from "../../test/helpers.js";
import { httpUpstream, rawUpstream, rawValues, send } from "../../test/proxy-helpers.js";
import { startProxy } from "./start-proxy.js";

// The two ways to the upstream (forward.ts): a request with a small declared body (or none) is read
// whole and sent through undici; the rest streams through node:http. Both must forward the same
// message: the upstream's view and the client's are checked here byte for byte, at and around the
// boundary, and where undici refuses a request.

const contract = await kitContract();
const sha256 = (b: Buffer): string => createHash("sha256").update(b).digest("hex");
/** Fields a hop writes for itself, and the two undici writes in its own place and case. */
const ownFields = new Set(["host", "content-length", "connection", "keep-alive"]);
const endToEnd = (raw: readonly string[]): string[] =>
  raw.flatMap((v, i) => (i % 2 === 0 && !ownFields.has(v.toLowerCase()) ? [v, raw[i + 1]!] : []));

describe("the two ways to the upstream", () => {
  it("bodies on either side of 64 KiB reach the upstream whole, end-to-end fields in order and case", async () => {
    const seen: { raw: string[]; sha: string; url: string }[] = [];
    const upstream = await httpUpstream((req, res) => {
      const hash = createHash("sha256");
      req.on("data", (c: Buffer) => hash.update(c));
      req.on("end", () => {
        seen.push({ raw: req.rawHeaders, sha: hash.digest("hex"), url: req.url! });
        res.sendDate = false;
        res.writeHead(201, "Made", ["X-Echo", "One", "set-cookie", "a=1", "Set-Cookie", "b=2", "Content-Length", "2"]);
        res.end("ok");
      });
    });
    const proxy = await startProxy({ target: upstream.url, contract, port: 0 });
    try {
      for (const size of [0, 1, 64 * 1024, 64 * 1024 + 1, 300_000]) {
        const body = randomBytes(size);
        const headers = ["X-Trace", "abc", "content-type", "application/octet-stream", "x-trace", "def"];
        const sent = await send(`${proxy.url}/upload/${size}?q=1`, { method: "POST", headers, body });
        expect(sent.status, `${size} bytes`).toBe(201);
        expect(sent.body.toString()).toBe("ok");
        expect(endToEnd(sent.rawHeaders)).toEqual(["X-Echo", "One", "set-cookie", "a=1", "Set-Cookie", "b=2"]);
        const got = seen.at(-1)!;
        expect(got.url).toBe(`/upload/${size}?q=1`);
        expect(got.sha, `${size} bytes`).toBe(sha256(body));
        expect(endToEnd(got.raw)).toEqual(headers);
        expect(rawValues(got.raw, "content-length")).toEqual([String(size)]);
        expect(rawValues(got.raw, "host")).toEqual([new URL(upstream.url).host]);
      }
      const { exchanges } = await proxy.stop();
      expect(exchanges.map((e) => [e.requestBytes, e.responseBytes, e.answeredBy])).toEqual(
        [0, 1, 64 * 1024, 64 * 1024 + 1, 300_000].map((n) => [n, 2, "upstream"]),
      );
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });

  it("a GET's large answer streams to a slow reader, unbuffered and whole", async () => {
    const size = 8 * 1024 * 1024;
    const answer = randomBytes(size);
    let clientHasFirst!: () => void;
    const firstArrived = new Promise<void>((resolve) => (clientHasFirst = resolve));
    const upstream = await httpUpstream((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(size) });
      // The rest only once the client has the first part: a proxy that buffered the answer would hang.
      res.write(answer.subarray(0, 64 * 1024));
      void firstArrived.then(() => res.end(answer.subarray(64 * 1024)));
    });
    const proxy = await startProxy({ target: upstream.url, contract, port: 0, timeoutMs: 10_000 });
    try {
      let pauses = 0;
      const sent = await send(`${proxy.url}/big`, {
        onChunk: (_chunk, response) => {
          clientHasFirst();
          // A slow reader: the proxy's write to it fills up, and the upstream's answer must wait.
          if (pauses++ % 16 === 0) {
            response.pause();
            setTimeout(() => response.resume(), 5);
          }
        },
      });
      expect(sent.error).toBeUndefined();
      expect(sent.body.length).toBe(size);
      expect(sha256(sent.body)).toBe(sha256(answer));
      const { exchanges } = await proxy.stop();
      expect(exchanges[0]).toMatchObject({ responseBytes: size, answeredBy: "upstream" });
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });

  it("a request undici will not send (OPTIONS *) goes through node:http, as the client wrote it", async () => {
    const seen: string[] = [];
    const upstream = await httpUpstream((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(204, { allow: "GET, POST" });
      res.end();
    });
    const proxy = await startProxy({ target: upstream.url, contract, port: 0 });
    try {
      const head = await rawHead(proxy.url, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n");
      expect(head).toMatch(/^HTTP\/1\.1 204 /);
      expect(head.toLowerCase()).toContain("allow: get, post");
      expect(seen).toEqual(["OPTIONS *"]);
      // GETs between more of them keep one upstream connection of each client: none is dropped or left idle.
      for (let i = 0; i < 3; i++) {
        await send(`${proxy.url}/plants/1`);
        await rawHead(proxy.url, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n");
      }
      expect(seen.filter((r) => r === "OPTIONS *")).toHaveLength(4);
      expect(upstream.connections()).toBe(2);
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });

  it("a reason phrase reaches the client as its bytes were, UTF-8 or not", async () => {
    // undici decodes the phrase as UTF-8, node:http as Latin-1: bytes that are UTF-8 are recovered;
    // others (obs-text) get the status's usual phrase once, then node:http carries that upstream.
    const phrases = [Buffer.from("Größe passt", "utf8"), Buffer.from([0x4f, 0x6b, 0xe9])];
    for (const phrase of phrases) {
      const answer = Buffer.concat([
        Buffer.from("HTTP/1.1 200 "),
        phrase,
        Buffer.from("\r\nContent-Length: 2\r\n\r\n{}"),
      ]);
      const upstream = await rawUpstream((socket) => socket.write(answer));
      const proxy = await startProxy({ target: upstream.url, contract, port: 0 });
      try {
        const lines: Buffer[] = [];
        for (let i = 0; i < 2; i++) lines.push(await statusLine(proxy.url));
        const utf8 = phrase === phrases[0];
        expect(lines[0]!.equals(Buffer.concat([Buffer.from("HTTP/1.1 200 "), utf8 ? phrase : Buffer.from("OK")]))).toBe(
          true,
        );
        expect(lines[1]!.equals(Buffer.concat([Buffer.from("HTTP/1.1 200 "), phrase]))).toBe(true);
      } finally {
        await proxy.stop();
        await upstream.close();
      }
    }
  });
});

/** The status line of a GET's answer, as bytes, over a connection of its own. */
async function statusLine(url: string): Promise<Buffer> {
  const head = await rawHead(url, "GET /plants/1 HTTP/1.1\r\nHost: x\r\n\r\n");
  return Buffer.from(head.slice(0, head.indexOf("\r\n")), "latin1");
}

/** The head of the answer to a raw request, over a connection of its own. */
function rawHead(url: string, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), "127.0.0.1");
    let got = "";
    socket.on("data", (c: Buffer) => {
      got += c.toString("latin1");
      if (got.includes("\r\n\r\n")) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on("error", reject);
    socket.write(request);
  });
}
