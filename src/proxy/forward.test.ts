import { describe, expect, it } from "vitest";
import { splitHeaders } from "./forward.js";

// What a proxy forwards of a header list, by RFC 9110 section 7.6.1 (connection-specific fields and
// the fields Connection names are not forwarded) and section 7.2 (a gateway's Host is the upstream's).
describe("splitHeaders", () => {
  it("drops the connection-specific fields, keeps Transfer-Encoding and the rest in order, names as written", () => {
    const raw = [
      "Connection", "keep-alive",
      "Keep-Alive", "timeout=5",
      "Proxy-Connection", "keep-alive",
      "TE", "trailers",
      "Upgrade", "websocket",
      "X-B", "2",
      "Transfer-Encoding", "chunked",
      "x-a", "1",
    ]; // prettier-ignore
    expect(splitHeaders(raw).forwarded).toEqual(["X-B", "2", "Transfer-Encoding", "chunked", "x-a", "1"]);
  });

  it("drops the fields a Connection header names, whatever their case, across repeated Connection fields", () => {
    const raw = ["Connection", " X-Hop , close", "X-Hop", "a", "x-end", "b", "connection", "X-Other", "X-OTHER", "c"];
    expect(splitHeaders(raw).forwarded).toEqual(["x-end", "b"]);
  });

  it("keeps repeated fields as repeated fields, and joins them with a comma in the map", () => {
    const raw = ["Set-Cookie", "a=1", "Vary", "Accept", "set-cookie", "b=2", "vary", "Origin"];
    const { forwarded, map } = splitHeaders(raw);
    expect(forwarded).toEqual(raw);
    expect({ ...map }).toEqual({ "set-cookie": "a=1, b=2", vary: "Accept, Origin" });
  });

  it("puts the map under lower-case names, hop-by-hop fields included, with no inherited member", () => {
    const raw = ["Content-Type", "application/json", "Connection", "close", "__proto__", "x", "Constructor", "y"];
    const { map } = splitHeaders(raw);
    expect(Object.keys(map)).toEqual(["content-type", "connection", "__proto__", "constructor"]);
    expect([map.__proto__, map.constructor, map.toString, map.hasOwnProperty]).toEqual([
      "x",
      "y",
      undefined,
      undefined,
    ]);
    expect(map.connection).toBe("close");
  });

  it("writes the upstream's authority as Host where the client put its own, once", () => {
    const raw = ["Accept", "*/*", "Host", "proxy:4012", "X-A", "1", "host", "again"];
    expect(splitHeaders(raw, "upstream:8080").forwarded).toEqual([
      "Accept",
      "*/*",
      "Host",
      "upstream:8080",
      "X-A",
      "1",
    ]);
    expect(splitHeaders(raw, "upstream:8080").map.host).toBe("proxy:4012, again");
  });

  it("adds Host first when the request has none (HTTP/1.0), or when its Connection header names Host", () => {
    expect(splitHeaders(["Accept", "*/*"], "upstream:8080").forwarded).toEqual([
      "Host",
      "upstream:8080",
      "Accept",
      "*/*",
    ]);
    const named = splitHeaders(["Accept", "*/*", "Host", "proxy", "Connection", "Host"], "upstream:8080");
    expect(named.forwarded).toEqual(["Host", "upstream:8080", "Accept", "*/*"]);
  });

  it("drops a Host that Connection names when no upstream authority is given (an answer's fields)", () => {
    expect(splitHeaders(["Host", "x", "Connection", "host", "A", "1"]).forwarded).toEqual(["A", "1"]);
  });
});
