import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { kitContract, TOKEN } from "../../test/helpers.js";
import { closedUrl, httpUpstream, rawUpstream, rawValues, send, type Closable } from "../../test/proxy-helpers.js";
import { startProxy } from "./start-proxy.js";

// Upstreams that misbehave on the wire. For each: the client gets an answer or a broken connection
// (never a hang), the exchange is recorded with the reason, and the verdict follows from it.
const contract = await kitContract();
const TIMEOUT = 300;
const create = {
  method: "POST",
  headers: ["Authorization", `Bearer ${TOKEN}`, "Content-Type", "application/json"],
  body: '{"id":1,"name":"x"}',
};
const plant = '{"name":"x"}';

async function through(upstream: Closable | string, times = 1) {
  const target = typeof upstream === "string" ? upstream : upstream.url;
  const proxy = await startProxy({ target, contract, port: 0, timeoutMs: TIMEOUT });
  try {
    const answers = [];
    for (let i = 0; i < times; i++) answers.push(await send(`${proxy.url}/plants`, create));
    const result = await proxy.stop();
    return { answers, ...result };
  } finally {
    await proxy.stop();
    if (typeof upstream !== "string") await upstream.close();
  }
}

const errorBody = (body: Buffer) => JSON.parse(body.toString()) as { error: number; message: string; code: string };

describe("upstreams that fail before answering", () => {
  it("one that never answers: the client gets 504 PS_UPSTREAM_TIMEOUT, the server fails", async () => {
    const { answers, summary, exchanges } = await through(await rawUpstream(() => undefined));
    expect(answers[0]!.status).toBe(504);
    expect(errorBody(answers[0]!.body)).toMatchObject({ error: 504, code: "PS_UPSTREAM_TIMEOUT" });
    expect(errorBody(answers[0]!.body).message).toContain(`nothing for ${TIMEOUT} ms`);
    expect(exchanges[0]).toMatchObject({ status: 504, answeredBy: "proxy", server: "fail" });
    expect(exchanges[0]!.findings).toContainEqual(
      expect.objectContaining({ side: "server", check: "response.received", counts: true }),
    );
    expect(summary.exitCode).toBe(1);
  });

  it("one that resets the connection: 502 PS_UPSTREAM_RESET", async () => {
    const { answers, summary, exchanges } = await through(await rawUpstream((socket) => socket.resetAndDestroy()));
    expect(answers[0]!.status).toBe(502);
    expect(errorBody(answers[0]!.body)).toMatchObject({ error: 502, code: "PS_UPSTREAM_RESET" });
    expect(exchanges[0]).toMatchObject({ answeredBy: "proxy", server: "fail" });
    expect(summary.exitCode).toBe(1);
  });

  it("one that answers with bytes that are not HTTP: 502 PS_UPSTREAM_RESET, named malformed", async () => {
    const { answers, exchanges } = await through(await rawUpstream((socket) => socket.end("SPEAK FRIEND\r\n\r\n")));
    expect(answers[0]!.status).toBe(502);
    expect(errorBody(answers[0]!.body).code).toBe("PS_UPSTREAM_RESET");
    expect(exchanges[0]!.findings[0]!.message).toContain("malformed-http");
  });

  it("one that refuses every connection: 502 PS_UPSTREAM_UNREACHABLE, nothing judged, exit 2", async () => {
    const { answers, summary, exchanges } = await through(await closedUrl(), 2);
    for (const a of answers) {
      expect(a.status).toBe(502);
      expect(errorBody(a.body)).toMatchObject({ error: 502, code: "PS_UPSTREAM_UNREACHABLE" });
    }
    expect(exchanges.map((e) => e.server)).toEqual(["error", "error"]);
    expect(summary).toMatchObject({ exchanges: 2, judged: 0, exitCode: 2 });
    expect(summary.runError).toContain("PS_UPSTREAM_UNREACHABLE");
  });

  it("one that answered once and then went away: the refusal is the server's failure", async () => {
    let served = 0;
    const upstream = await httpUpstream((req, res) => {
      req.resume();
      served++;
      res.writeHead(200, { "content-type": "application/json", connection: "close" });
      res.end(plant);
    });
    const proxy = await startProxy({ target: upstream.url, contract, port: 0, timeoutMs: TIMEOUT });
    try {
      expect((await send(`${proxy.url}/plants`, create)).status).toBe(200);
      await upstream.close();
      expect((await send(`${proxy.url}/plants`, create)).status).toBe(502);
      const { summary, exchanges } = await proxy.stop();
      expect(served).toBe(1);
      expect(exchanges[1]!.findings[0]).toMatchObject({
        side: "server",
        check: "response.received",
        message: "the upstream stopped accepting connections",
      });
      expect(summary.exitCode).toBe(1);
    } finally {
      await proxy.stop();
    }
  });
});

describe("upstreams that break off their answer", () => {
  const head = (length: number) =>
    `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  it("a Content-Length longer than the body, then a close: a broken answer, a failure", async () => {
    const { answers, summary, exchanges } = await through(await rawUpstream((s: Socket) => s.end(head(100) + plant)));
    expect(answers[0]!.status).toBe(200);
    expect(answers[0]!.error).toBeDefined();
    expect(answers[0]!.body.toString()).toBe(plant);
    expect(exchanges[0]!.findings[0]).toMatchObject({
      side: "server",
      check: "response.received",
      message: "no usable answer: length-mismatch",
    });
    expect(summary.exitCode).toBe(1);
  });

  it("a Content-Length longer than the body, then silence: cut after the timeout", async () => {
    const { answers, exchanges } = await through(await rawUpstream((s: Socket) => s.write(head(100) + plant)));
    expect(answers[0]!.status).toBe(200);
    expect(answers[0]!.error).toBeDefined();
    expect(exchanges[0]!.findings[0]).toMatchObject({
      check: "response.received",
      message: "no usable answer: timeout",
    });
  });

  it("a Content-Length shorter than the body: the client gets what Node reads, the proxy a failure", async () => {
    const { answers, summary, exchanges } = await through(await rawUpstream((s: Socket) => s.end(head(5) + plant)));
    expect(answers[0]!.status).toBe(200);
    expect(answers[0]!.error).toBeUndefined();
    expect(answers[0]!.body.toString()).toBe(plant.slice(0, 5));
    expect(exchanges[0]!.findings[0]).toMatchObject({
      check: "response.received",
      message: "no usable answer: malformed-http",
    });
    expect(exchanges[0]!.findings[0]!.received).toContain("bytes after the end of its answer");
    expect(summary.exitCode).toBe(1);
  });

  it("a client that goes away mid-answer is nobody's violation", async () => {
    const upstream = await httpUpstream((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"name":');
    });
    const proxy = await startProxy({ target: upstream.url, contract, port: 0, timeoutMs: 10_000 });
    try {
      const answer = await send(`${proxy.url}/plants`, { ...create, onChunk: (_c, res) => res.destroy() });
      expect(answer.status).toBe(200);
      const { summary, exchanges } = await proxy.stop();
      expect(exchanges[0]).toMatchObject({ server: "error", findings: [] });
      expect(exchanges[0]!.notJudged).toMatchObject({
        kind: "client-gone",
        message: expect.stringContaining("the client closed the connection"),
      });
      expect(summary.exitCode).toBe(2);
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });
});

describe("upstreams within HTTP's latitude", () => {
  // RFC 9110 section 15.2: a client must read past 1xx answers it did not ask for. undici (the
  // proxy's client for small requests) closes the connection at a 100 Continue without Expect.
  const continued = (heads: string[]) =>
    rawUpstream((s: Socket, head) => {
      heads.push(head.split("\r\n")[0]!);
      s.write("HTTP/1.1 100 Continue\r\n\r\n");
      setImmediate(() =>
        s.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 19\r\n\r\n{"id":1,"name":"x"}`),
      );
    });

  it("a 100 Continue unasked: a POST gets 502, not judged (the proxy's fault); later ones read past it", async () => {
    const heads: string[] = [];
    const upstream = await continued(heads);
    const proxy = await startProxy({ target: upstream.url, contract, port: 0, timeoutMs: TIMEOUT });
    try {
      const first = await send(`${proxy.url}/plants`, create);
      const second = await send(`${proxy.url}/plants`, create);
      expect(first.status).toBe(502);
      expect(errorBody(first.body).message).toContain("100 Continue");
      expect([second.status, second.body.toString()]).toEqual([200, '{"id":1,"name":"x"}']);
      // Each POST reached the upstream once.
      expect(heads).toEqual(["POST /plants HTTP/1.1", "POST /plants HTTP/1.1"]);
      const { exchanges, summary } = await proxy.stop();
      expect(exchanges[0]!.notJudged).toMatchObject({ kind: "proxy-error" });
      expect(exchanges[0]!.notJudged!.message).toContain("RFC 9110 section 15.2");
      expect(exchanges[0]!.findings.filter((f) => f.side === "server")).toEqual([]);
      expect(exchanges[1]).toMatchObject({ status: 200, answeredBy: "upstream", notJudged: undefined });
      expect(summary.exitCode).not.toBe(1);
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });

  it("a 100 Continue unasked to an idempotent request: sent again, read past, the answer forwarded", async () => {
    const heads: string[] = [];
    const upstream = await continued(heads);
    const proxy = await startProxy({ target: upstream.url, contract, port: 0, timeoutMs: TIMEOUT });
    try {
      const got = await send(`${proxy.url}/plants/1`, { headers: ["Authorization", `Bearer ${TOKEN}`] });
      expect([got.status, got.body.toString()]).toEqual([200, '{"id":1,"name":"x"}']);
      expect(heads).toEqual(["GET /plants/1 HTTP/1.1", "GET /plants/1 HTTP/1.1"]);
      const { exchanges } = await proxy.stop();
      expect(exchanges[0]).toMatchObject({ status: 200, answeredBy: "upstream" });
      expect(exchanges[0]!.notJudged?.kind).not.toBe("proxy-error");
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });
});

describe("answers at the edges of HTTP/1.1, through either client", () => {
  // A create goes through undici (a small body); a HEAD or a large body through node:http.
  const large = { ...create, body: JSON.stringify({ id: 1, name: "x".repeat(70 * 1024) }) };
  const head = { ...create, method: "HEAD", body: undefined };
  const via = async (misbehave: (s: Socket) => void, requests: Parameters<typeof send>[1][]) => {
    const upstream = await rawUpstream(misbehave);
    const proxy = await startProxy({ target: upstream.url, contract, port: 0, timeoutMs: TIMEOUT });
    try {
      const answers = [];
      for (const r of requests) answers.push(await send(`${proxy.url}/plants`, r));
      return { answers, ...(await proxy.stop()) };
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  };

  it("a 304 with a Content-Length and no body is forwarded whole, no failure", async () => {
    const answer = 'HTTP/1.1 304 Not Modified\r\nETag: "x"\r\nContent-Length: 15\r\n\r\n';
    const { answers, exchanges } = await via((s) => s.write(answer), [create, large]);
    for (const a of answers)
      expect([a.status, a.error, rawValues(a.rawHeaders, "etag")]).toEqual([304, undefined, ['"x"']]);
    for (const e of exchanges) expect(e.findings.filter((f) => f.severity === "failure")).toEqual([]);
  });

  it("a reason phrase node:http will not write: 502 to the client, a malformed answer, the proxy lives on", async () => {
    const answer = `HTTP/1.1 200 O\x01K\r\nContent-Length: ${plant.length}\r\n\r\n${plant}`;
    const { answers, exchanges } = await via((s) => s.write(answer), [create, large, head]);
    expect(answers.map((a) => a.status)).toEqual([502, 502, 502]);
    expect(errorBody(answers[0]!.body).message).toContain("cannot be forwarded");
    for (const e of exchanges.slice(0, 2))
      expect(e.findings[0]).toMatchObject({ check: "response.received", message: "no usable answer: malformed-http" });
  });

  it("101 to a request that asked for no upgrade: a malformed answer, at once", async () => {
    const answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: foo\r\nConnection: Upgrade\r\n\r\n";
    const bare = "HTTP/1.1 101 Switching Protocols\r\n\r\n";
    for (const sent of [answer, bare]) {
      const { answers, exchanges } = await via((s) => s.write(sent), [create, large]);
      expect(answers.map((a) => a.status)).toEqual([502, 502]);
      for (const e of exchanges) expect(e.findings[0]).toMatchObject({ message: "no usable answer: malformed-http" });
      // Named as a switch where the client says so (all but undici's bare 101, which it stops at unread).
      if (sent === answer) for (const e of exchanges) expect(e.findings[0]!.received).toContain("RFC 9110 section 7.8");
    }
  });

  it("a close in mid-body: length-mismatch under a Content-Length, reset when chunked, on either client", async () => {
    const json = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n";
    const short = await via((s) => s.end(`${json}Content-Length: 100\r\n\r\n{"name":`), [create, large]);
    const chunked = await via(
      (s) => s.end(`${json}Transfer-Encoding: chunked\r\n\r\n7\r\n{"name"\r\n`),
      [create, large],
    );
    for (const e of short.exchanges)
      expect(e.findings[0]).toMatchObject({ message: "no usable answer: length-mismatch" });
    for (const e of chunked.exchanges) expect(e.findings[0]).toMatchObject({ message: "no usable answer: reset" });
  });
});
