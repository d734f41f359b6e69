import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { rawUpstream } from "../../test/proxy-helpers.js";
import { createHttpClient, type HttpClient } from "./http-client.js";

// The harness's HTTP client at the edges of HTTP/1.1 that servers and timings create: what it reads
// as the target's answer must be the answer, not an accident of the wire.
let client: HttpClient | undefined;
let target: Awaited<ReturnType<typeof rawUpstream>> | undefined;
afterEach(async () => {
  await client?.close();
  await target?.close();
  client = undefined;
  target = undefined;
});

const get = { method: "GET", path: "/x", headers: {}, body: undefined, parameters: {}, pathOnly: "/x" };

describe("the harness's HTTP client", () => {
  it("reads a 204 with a stray Content-Length as the complete, bodiless answer it is (RFC 9112 section 6.3)", async () => {
    target = await rawUpstream((s) => s.write("HTTP/1.1 204 No Content\r\nContent-Length: 11\r\n\r\n"));
    client = createHttpClient({ timeoutMs: 2_000, maxResponseBytes: 65_536 });
    const result = await client.exchange(new URL(target.url), get);
    expect(result.ok && [result.response.status, result.response.body.length]).toEqual([204, 0]);
  });

  it("sends once more, on a fresh connection, a request whose kept-alive connection the server closed before answering", async () => {
    const seen = new WeakMap<Socket, number>();
    let fins = 0;
    target = await rawUpstream((s: Socket) => {
      const onThis = (seen.get(s) ?? 0) + 1;
      seen.set(s, onThis);
      // A request on a kept-alive connection the server had already closed as idle: a FIN, no answer.
      if (onThis >= 2) {
        fins++;
        s.end();
      } else s.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
    });
    client = createHttpClient({ timeoutMs: 2_000, maxResponseBytes: 65_536 });
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await client.exchange(new URL(target.url), get));
    expect(results.map((r) => r.ok && r.response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(fins).toBeGreaterThan(0);
  });

  it("charges to the target a close on a fresh connection, and a reset: neither is sent again", async () => {
    let requests = 0;
    target = await rawUpstream((s: Socket) => {
      requests++;
      if (requests === 1) s.end();
      else s.resetAndDestroy();
    });
    client = createHttpClient({ timeoutMs: 2_000, maxResponseBytes: 65_536 });
    const closed = await client.exchange(new URL(target.url), get);
    expect(!closed.ok && closed.failure.kind).toBe("reset");
    const reset = await client.exchange(new URL(target.url), get);
    expect(!reset.ok && reset.failure.kind).toBe("reset");
    expect(requests).toBe(2);
  });

  it("keeps a connection whose answer passed the read cap but came whole in one read, as request() did", async () => {
    const connections = new Set<Socket>();
    target = await rawUpstream((s) => {
      connections.add(s);
      s.write(`HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n${"x".repeat(100)}`);
    });
    client = createHttpClient({ timeoutMs: 2_000, maxResponseBytes: 50 });
    const kinds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const result = await client.exchange(new URL(target.url), get);
      kinds.push(result.ok ? "ok" : result.failure.kind);
    }
    expect(kinds).toEqual(["too-large", "too-large", "too-large"]);
    // Fewer connections than requests: one was used again (undici may open a second while the first
    // is being released, as it did under request()); aborting each read at the cap used three.
    expect(connections.size).toBeLessThan(3);
  });

  it("sends a request without a method as request() did: GET, or PUT with a body", async () => {
    const methods: string[] = [];
    target = await rawUpstream((s, head) => {
      methods.push(head.split(" ")[0]!);
      s.write("HTTP/1.1 204 No Content\r\n\r\n");
    });
    client = createHttpClient({ timeoutMs: 2_000, maxResponseBytes: 65_536 });
    await client.exchange(new URL(target.url), { ...get, method: "" });
    await client.exchange(new URL(target.url), { ...get, method: "", body: Buffer.from("{}") });
    expect(methods).toEqual(["GET", "PUT"]);
  });

  it("refuses a CONNECT before sending it, as undici's request() did, instead of waiting forever on a tunnel", async () => {
    // Any answer to a CONNECT is a tunnel to undici's dispatch API (an upgrade): a handler without
    // onRequestUpgrade never hears of it, and the deadline cannot abort a request undici deems complete.
    target = await rawUpstream((s) => s.write("HTTP/1.1 200 OK\r\n\r\n"));
    client = createHttpClient({ timeoutMs: 300, maxResponseBytes: 65_536 });
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      client.exchange(new URL(target.url), { ...get, method: "CONNECT" }),
      new Promise<"unsettled">((resolve) => (timer = setTimeout(() => resolve("unsettled"), 2_000))),
    ]);
    clearTimeout(timer);
    expect(result !== "unsettled" && !result.ok && result.failure).toEqual({
      kind: "reset",
      message: "the exchange failed (UND_ERR_INVALID_ARG: invalid method)",
    });
  });
});

describe("the deadline of one exchange", () => {
  it("cuts an answer that never ends, before its head and after it, as a timeout (the hang guard)", async () => {
    let mode: "silent" | "trickle" = "silent";
    target = await rawUpstream((s: Socket) => {
      // Silent: the request is read and never answered. Trickle: a head, then a byte of body every
      // 50 ms, never silent long enough for undici's own timeouts: only the exchange's deadline ends it.
      if (mode !== "trickle") return;
      s.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
      const drip = setInterval(() => s.write(" "), 50);
      s.on("close", () => clearInterval(drip));
    });
    client = createHttpClient({ timeoutMs: 300, maxResponseBytes: 65_536 });
    const silent = await client.exchange(new URL(target.url), get);
    mode = "trickle";
    const trickle = await client.exchange(new URL(target.url), get);
    for (const result of [silent, trickle]) {
      expect(result.ok).toBe(false);
      // The words an AbortController's abort gave, which reports quote: the deadline gives undici its reason.
      if (!result.ok)
        expect([result.failure.kind, result.failure.message]).toEqual([
          "timeout",
          "no complete answer within 300 ms (This operation was aborted)",
        ]);
    }
    expect(!trickle.ok && trickle.answerBegun).toBe(true);
  });
});
