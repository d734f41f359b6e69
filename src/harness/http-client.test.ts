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

  it("tries once more, on a fresh connection, when a connection closes before any answer", async () => {
    let requests = 0;
    target = await rawUpstream((s: Socket) => {
      requests++;
      if (requests === 1) s.resetAndDestroy();
      else s.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
    });
    client = createHttpClient({ timeoutMs: 2_000, maxResponseBytes: 65_536 });
    const result = await client.exchange(new URL(target.url), get);
    expect(result.ok && result.response.status).toBe(200);
    expect(requests).toBe(2);
  });

  it("charges a second close to the target", async () => {
    let requests = 0;
    target = await rawUpstream((s: Socket) => {
      requests++;
      s.resetAndDestroy();
    });
    client = createHttpClient({ timeoutMs: 2_000, maxResponseBytes: 65_536 });
    const result = await client.exchange(new URL(target.url), get);
    expect(!result.ok && result.failure.kind).toBe("reset");
    expect(requests).toBe(2);
  });
});
