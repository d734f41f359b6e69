import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkRequest, compileContract, type Contract } from "../src/contract/index.js";
import { encodeBody } from "../src/harness/generate/encoding.js";
import { positiveBodies } from "../src/harness/generate/bodies.js";
import { runConformance } from "../src/harness/run.js";
import { openApi } from "../test/openapi-doc.js";

// Operations whose bodies are forms, not JSON: urlencoded and multipart, each read field by field as
// its schema and `encoding` say, judged by the contract, and generated like JSON bodies.
const contract: Contract = compileContract(
  openApi(
    {
      "/notes": {
        post: {
          operationId: "createNote",
          requestBody: {
            required: true,
            content: {
              "application/x-www-form-urlencoded": {
                schema: {
                  type: "object",
                  required: ["title", "count"],
                  properties: {
                    title: { type: "string", maxLength: 20 },
                    count: { type: "integer", minimum: 1 },
                    tags: { type: "array", items: { type: "string" } },
                  },
                },
              },
            },
          },
          responses: { "200": { description: "stored" }, "400": { description: "refused" } },
        },
      },
      "/uploads": {
        post: {
          operationId: "upload",
          requestBody: {
            required: true,
            content: {
              "multipart/form-data": {
                schema: {
                  type: "object",
                  required: ["name", "meta"],
                  properties: {
                    name: { type: "string" },
                    meta: { type: "object", required: ["size"], properties: { size: { type: "integer" } } },
                  },
                },
              },
            },
          },
          responses: { "200": { description: "stored" }, "400": { description: "refused" } },
        },
      },
    },
    { title: "forms" },
  ),
  "forms.yaml",
);
const form = (body: string) => ({
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new TextEncoder().encode(body),
});
const multipart = (parts: [string, string, string?][]) => ({
  headers: { "content-type": "multipart/form-data; boundary=XyZ" },
  body: new TextEncoder().encode(
    parts
      .map(
        ([n, v, t]) =>
          `--XyZ\r\nContent-Disposition: form-data; name="${n}"${t ? `\r\nContent-Type: ${t}` : ""}\r\n\r\n${v}\r\n`,
      )
      .join("") + "--XyZ--\r\n",
  ),
});

describe("form bodies judged by the contract", () => {
  const note = contract.operation("createNote")!;
  const upload = contract.operation("upload")!;
  it.each([
    ["title=Hi&count=2&tags=a&tags=b", true],
    ["title=Hi+there&count=1", true],
    ["title=Hi&count=zero", false],
    ["title=Hi", false],
    ["title=Hi&count=0", false],
    [`title=${"x".repeat(21)}&count=1`, false],
  ])("urlencoded %s: accepted %s", (body, ok) => {
    expect(checkRequest(note, form(body)).ok).toBe(ok);
  });
  it.each([
    [
      [
        ["name", "a.txt"],
        ["meta", '{"size":3}', "application/json"],
      ],
      true,
    ],
    [
      [
        ["name", "a.txt"],
        ["meta", '{"size":"big"}', "application/json"],
      ],
      false,
    ],
    [[["name", "a.txt"]], false],
  ] as [[string, string, string?][], boolean][])("multipart %j: accepted %s", (parts, ok) => {
    expect(checkRequest(upload, multipart(parts)).ok).toBe(ok);
  });
  it("a multipart body without the boundary its Content-Type names is refused", () => {
    const r = checkRequest(upload, {
      ...multipart([["name", "x"]]),
      headers: { "content-type": "multipart/form-data; boundary=Other" },
    });
    expect(r).toMatchObject({ ok: false, reason: "schema" });
  });
});

/** A server that judges each request with the contract (or, `lax`, accepts everything). */
async function serve(lax: boolean): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const route = contract.route(req.method ?? "GET", (req.url ?? "/").split("?")[0]!);
      if (route.kind !== "found") return void res.writeHead(404).end();
      const ok =
        lax ||
        checkRequest(route.operation, { headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) })
          .ok;
      res.writeHead(ok ? 200 : 400).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe("generated form bodies", () => {
  it.each([
    [false, 0],
    [true, 1],
  ])("against a server that %s accepts everything: exit %i, both operations exercised", async (lax, exitCode) => {
    const { url, server } = await serve(lax);
    try {
      const { summary, results } = await runConformance({
        target: url,
        contract,
        noFixtures: true,
        generate: { count: 20 },
        seed: 4n,
      });
      expect(
        summary.exitCode,
        JSON.stringify(
          results.filter((r) => r.outcome !== "pass"),
          null,
          1,
        ).slice(0, 2000),
      ).toBe(exitCode);
      expect(summary.coverage.operations.exercised).toBe(2);
      if (lax)
        for (const id of ["generated-negative-createNote", "generated-negative-upload"])
          expect(results.find((r) => r.fixture === id)?.outcome).toBe("fail");
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe("form fields carry what a form can", () => {
  it("a form field never holds a lone surrogate, and a value with one is not encoded (not thrown)", () => {
    const note = contract.operation("createNote")!;
    const bodies = fc
      .sample(positiveBodies(contract, note, contract.document, { fresh: new Map() }), { numRuns: 300, seed: 5 })
      .filter((b) => b !== null);
    expect(bodies.length).toBeGreaterThan(100);
    for (const b of bodies) expect(b.text).not.toMatch(/%ED%[AB][0-9A-F]/); // UTF-8 of a surrogate
    // Non-ASCII text does reach the fields (the charset is Unicode, not ASCII).
    expect(bodies.some((b) => /%[C-F][0-9A-F]/.test(b.text))).toBe(true);
    expect(encodeBody(note, { title: "a\ud800", count: 1 })).toBeUndefined();
  });
});

describe("multipart part names", () => {
  const upload = contract.operation("upload")!;
  it.each([
    ["an undocumented name with %", { file: "a", "%%": "x" }, false],
    ["an undocumented name with a quote", { file: "a", 'a"b': "x" }, false],
    ["an undocumented plain name", { file: "a", extra: "x" }, true],
  ])("%s: made %s", (_name, value, made) => {
    // WHATWG's encoding writes '"' as %22 in a name, so a receiver may percent-decode names.
    expect(encodeBody(upload, value) !== undefined).toBe(made);
  });
});
