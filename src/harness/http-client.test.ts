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
});
