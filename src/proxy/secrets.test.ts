import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadContract } from "../contract/index.js";
import { httpUpstream, send } from "../../test/proxy-helpers.js";
import { tempDir } from "../../test/temp-dir.js";
import { proxyConsoleReporter, proxyJsonReport, proxyJunitReport } from "./reports.js";
import { credentialPlaces, SecretBook, secretsOf } from "./secrets.js";
import { startProxy } from "./start-proxy.js";
import type { ProxyEvent } from "./types.js";
import { openApi } from "../../test/openapi-doc.js";

/** A contract whose one operation needs an apiKey in a header, in the query and in a cookie, all three. */
const spec = openApi(
  {
    "/things": {
      post: {
        operationId: "createThing",
        security: [{ headerKey: [], queryKey: [], cookieKey: [] }],
        requestBody: {
          required: true,
          content: {
            "application/json": { schema: { type: "object", required: ["n"], properties: { n: { type: "integer" } } } },
          },
        },
        responses: {
          "200": {
            description: "ok",
            content: {
              "application/json": {
                schema: { type: "object", required: ["ok"], properties: { ok: { type: "boolean" } } },
              },
            },
          },
        },
      },
    },
  },
  {
    title: "Keys",
    components: {
      securitySchemes: {
        headerKey: { type: "apiKey", in: "header", name: "X-Api-Key" },
        queryKey: { type: "apiKey", in: "query", name: "api_key" },
        cookieKey: { type: "apiKey", in: "cookie", name: "session" },
        unused: { type: "apiKey", in: "header", name: "X-Other-Key" },
      },
    },
  },
);
const dir = tempDir("plantstore-proxy-keys-");
const specFile = join(dir, "keys.json");
writeFileSync(specFile, JSON.stringify(spec));
const contract = await loadContract(specFile);

describe("secretsOf", () => {
  const places = credentialPlaces(contract);
  it.each([
    ["a bearer token", { authorization: "Bearer abc.def" }, "/things", ["abc.def"], "abc.def"],
    ["a lower-case scheme", { authorization: "bearer xyz" }, "/things", ["xyz"], "xyz"],
    [
      "Basic credentials, decoded too",
      { authorization: `Basic ${Buffer.from("ann:pw-9").toString("base64")}` },
      "/things",
      [Buffer.from("ann:pw-9").toString("base64"), "ann:pw-9", "pw-9"],
      Buffer.from("ann:pw-9").toString("base64"),
    ],
    ["a value with no scheme", { authorization: "rawtoken" }, "/things", ["rawtoken"], "rawtoken"],
    ["Proxy-Authorization", { "proxy-authorization": "Bearer p-1" }, "/things", ["p-1"], ""],
    [
      "an apiKey header, a named one unused by any operation too",
      { "x-api-key": "hk", "x-other-key": "ok2" },
      "/things",
      ["hk", "ok2"],
      "",
    ],
    ["an apiKey query parameter, encoded", {}, "/things?a=1&api_key=q%2Bk&b=2", ["q+k"], ""],
    ["an apiKey cookie among others", { cookie: "theme=dark; session=ck-7; x=y" }, "/things", ["ck-7"], ""],
  ])("finds %s", (_name, headers, target, all, primary) => {
    const s = secretsOf(places, headers, target);
    expect([...s.all].sort()).toEqual([...all].sort());
    expect(s.primary).toBe(primary);
  });
});

describe("SecretBook.forRequest", () => {
  const places = credentialPlaces(contract);
  // Requests that differ only in where a credential goes, sent twice each, in turn: a scope kept for
  // one must never serve another (the key is every value secretsOf reads).
  const requests: [Record<string, string>, string][] = [
    [{ authorization: "Bearer one-token" }, "/things"],
    [{ authorization: "Bearer two-token" }, "/things"],
    [{ "proxy-authorization": "Bearer one-token" }, "/things"],
    [{ authorization: "Bearer one-token", "x-api-key": "hk-1" }, "/things"],
    [{ authorization: "Bearer one-token", "x-other-key": "hk-1" }, "/things"],
    [{ authorization: "Bearer one-token" }, "/things?api_key=qk-1"],
    [{ authorization: "Bearer one-token" }, "/things?api_key=qk-2"],
    [{ authorization: "Bearer one-token", cookie: "session=ck-1" }, "/things"],
    [{ authorization: "Bearer one-token", cookie: "session=ck-2" }, "/things"],
    [{ authorization: "Bearer one-token", "content-type": "text/plain" }, "/things?other=1"],
    [{}, "/things"],
  ];

  const none = { headers: new Set<string>(), query: new Set<string>(), cookies: new Set<string>() };
  it.each([
    ["a contract with apiKeys in a header, the query and a cookie", places],
    ["a contract whose credentials go in Authorization only", none],
  ])("gives each request its own secrets and a redactor that masks exactly them, for %s", (_name, places) => {
    const book = new SecretBook();
    for (const [headers, target] of [...requests, ...requests]) {
      const expected = secretsOf(places, headers, target);
      const { secrets, redact } = book.forRequest(places, headers, target);
      expect(secrets).toEqual(expected);
      for (const secret of expected.all) expect(redact(`x ${secret} y`)).toBe("x [REDACTED] y");
      expect(redact("x one-token two-token hk-1 qk-1 qk-2 ck-1 ck-2 y")).toBe(
        [
          "x",
          ..."one-token two-token hk-1 qk-1 qk-2 ck-1 ck-2"
            .split(" ")
            .map((w) => (expected.all.includes(w) ? "[REDACTED]" : w)),
          "y",
        ].join(" "),
      );
    }
  });

  it("records every request's secrets for the run's last masking", () => {
    const book = new SecretBook();
    for (const [headers, target] of requests) book.forRequest(places, headers, target);
    expect(book.redactor()("one-token two-token hk-1 qk-1 qk-2 ck-1 ck-2")).toBe(Array(7).fill("[REDACTED]").join(" "));
  });
});

describe("SecretBook.forRequest, values that hold what a key could be split at", () => {
  const none = { headers: new Set<string>(), query: new Set<string>(), cookies: new Set<string>() };

  // Node with --insecure-http-parser lets a header value hold NUL: a key of values joined with NUL
  // gave the second request the first's secrets, so its own were neither masked nor recorded.
  it("does not take a NUL inside Authorization for the split between Authorization and Proxy-Authorization", () => {
    const book = new SecretBook();
    book.forRequest(none, { authorization: "Bearer tok-one-1234\u0000pa-two-5678" }, "/plants");
    const headers = { authorization: "Bearer tok-one-1234", "proxy-authorization": "pa-two-5678" };
    const { secrets, redact } = book.forRequest(none, headers, "/plants");
    expect(secrets).toEqual(secretsOf(none, headers, "/plants"));
    expect(redact("tok-one-1234 pa-two-5678")).toBe("[REDACTED] [REDACTED]");
    expect(book.redactor()("tok-one-1234 pa-two-5678")).toBe("[REDACTED] [REDACTED]");
  });
});

describe("no secret in any output", () => {
  it("masks apiKeys (header, query, cookie) and the bearer token in console and reports", async () => {
    const keys = { header: "hk-7f1e9a0c", query: "qk-0b9d3e55", cookie: "ck-a41c7d2e", bearer: "bt-93e0f1aa" };
    // An upstream that echoes the whole request back, in plain text and base64, in a body that breaks the schema.
    const upstream = await httpUpstream((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const echo = JSON.stringify({ url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ echo, b64: Buffer.from(echo).toString("base64") }));
      });
    });
    const lines: string[] = [];
    const onConsole = proxyConsoleReporter((l) => lines.push(l), { verbose: true });
    const proxy = await startProxy({ target: upstream.url, contract, port: 0 }, (e: ProxyEvent) => onConsole(e));
    try {
      const answer = await send(`${proxy.url}/things?api_key=${keys.query}`, {
        method: "POST",
        headers: [
          "X-Api-Key",
          keys.header,
          "Cookie",
          `session=${keys.cookie}`,
          "Authorization",
          `Bearer ${keys.bearer}`,
          "Content-Type",
          "application/json",
        ],
        body: JSON.stringify({ n: "not an integer", copy: Object.values(keys) }),
      });
      expect(answer.status).toBe(200);
      const { summary, exchanges } = await proxy.stop();
      expect(summary.exitCode).toBe(1);
      expect(exchanges[0]!.findings.map((f) => `${f.side} ${f.check}`)).toEqual([
        "client request.body",
        "server response.schema",
      ]);
      const outputs = [
        lines.join("\n"),
        proxyJsonReport(summary, exchanges),
        proxyJunitReport(summary, exchanges),
      ].join("\n");
      expect(outputs).toContain("[REDACTED]");
      expect(outputs).toContain("${PLANTSTORE_TOKEN}");
      for (const key of Object.values(keys)) {
        expect(outputs).not.toContain(key);
        expect(outputs).not.toContain(Buffer.from(key).toString("base64").slice(0, 8));
      }
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });
});

describe("a short or common-word token", () => {
  it("is masked where it is the credential and where the upstream echoes it, not in the proxy's own words", async () => {
    const upstream = await httpUpstream((req, res) => {
      req.resume();
      req.on("end", () =>
        res
          .writeHead(200, { "content-type": "application/json", "x-echo": String(req.headers.authorization) })
          .end(JSON.stringify({ token: "plant", url: req.url })),
      );
    });
    const lines: string[] = [];
    const onConsole = proxyConsoleReporter((l) => lines.push(l), { verbose: true });
    const proxy = await startProxy({ target: upstream.url, contract, port: 0 }, (e: ProxyEvent) => onConsole(e));
    try {
      await send(`${proxy.url}/things?api_key=k-1`, {
        method: "POST",
        headers: ["Authorization", "Bearer plant", "X-Api-Key", "plant", "Content-Type", "application/json"],
        body: JSON.stringify({ n: "plant" }),
      });
      const { summary, exchanges } = await proxy.stop();
      const e = exchanges[0]!;
      expect(e.path).toBe("/things?api_key=[REDACTED]");
      expect(e.curl).toContain('-H "authorization: Bearer ${PLANTSTORE_TOKEN}"');
      expect(e.curl).toContain("/things?api_key=[REDACTED]");
      expect(e.findings.map((f) => `${f.side} ${f.check}`)).toEqual(["client request.body", "server response.schema"]);
      const schema = e.findings.find((f) => f.check === "response.schema")!;
      expect(schema.received).toContain('"token":"[REDACTED]"');
      expect(schema.message).toBe("the 200 body breaks its schema: body/ok: is required (required)");
      const outputs = [lines.join("\n"), proxyJsonReport(summary, exchanges), proxyJunitReport(summary, exchanges)];
      for (const out of outputs) {
        expect(out).not.toContain("[REDACTED]STORE");
        expect(out).not.toMatch(/(?<![A-Za-z0-9])plant(?![A-Za-z0-9])/);
      }
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });
});
