import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkRequest, compileContract } from "../../contract/index.js";
import { bodyContentType, bodyMediaType } from "./encoding.js";
import { generatable, negativesPossible, positiveRequests } from "./requests.js";
import { runConformance } from "../run.js";
import { openApi } from "../../../test/openapi-doc.js";

// Bodies that are neither JSON nor a form, as real documents have them: Gitea's POST /markdown/raw
// (text/plain, `type: string`), Telnyx's POST /reports/mdr_usage_reports (the bare wildcard, an
// object schema). The contract puts no rule on such a body; the generator sends what the media type
// can carry, and the operation is exercised instead of left out.
const op = (type: string, schema: unknown, operationId: string) => ({
  post: {
    operationId,
    requestBody: { required: true, content: { [type]: schema === undefined ? {} : { schema } } },
    responses: { "200": { description: "ok" } },
  },
});
const contract = compileContract(
  openApi(
    {
      "/markdown/raw": op("text/plain", { type: "string", minLength: 12, pattern: "^#" }, "renderRaw"),
      "/reports": op(
        "*/*",
        {
          type: "object",
          required: ["start_date"],
          properties: { start_date: { type: "string", format: "date-time" }, profiles: { type: "string" } },
        },
        "createReport",
      ),
      "/notes": op("text/*", undefined, "anyText"),
      "/xml": op("application/xml", { type: "object", properties: { a: { type: "string" } } }, "xmlOnly"),
    },
    { openapi: "3.0.3", title: "text bodies" },
  ),
  "text-bodies.yaml",
);
const operation = (id: string) => contract.operation(id)!;

let server: Server;
let url: string;
const seen: { path: string; contentType: string | undefined; body: string }[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      seen.push({ path: req.url ?? "", contentType: req.headers["content-type"], body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("request bodies that are text, or fall under a media range", () => {
  it("are generated where the media type can carry the schema's values, and said where it cannot", () => {
    for (const id of ["renderRaw", "createReport", "anyText"]) expect(generatable(operation(id))).toEqual({ ok: true });
    expect(generatable(operation("xmlOnly"))).toMatchObject({
      ok: false,
      why: expect.stringContaining("application/xml"),
    });
    expect(bodyMediaType(operation("xmlOnly"))).toBeUndefined();
  });

  it("go with a Content-Type the contract's media type covers: text as itself, JSON under a range", () => {
    expect(bodyContentType(operation("renderRaw"))).toBe("text/plain");
    expect(bodyContentType(operation("createReport"))).toBe("application/json");
    expect(bodyContentType(operation("anyText"))).toBe("text/plain");
  });

  it("a text body is the string its schema describes, sent as is (no JSON quotes)", () => {
    const requests = fc
      .sample(positiveRequests(contract, operation("renderRaw"), { fresh: new Map() }), { numRuns: 40, seed: 3 })
      .filter((r) => r !== null);
    expect(requests.length).toBeGreaterThan(30);
    for (const r of requests) {
      const text = r.body!.text;
      expect(text.startsWith("#") && [...text].length >= 12, JSON.stringify(text)).toBe(true);
      const checked = checkRequest(operation("renderRaw"), {
        headers: { "content-type": "text/plain" },
        body: new TextEncoder().encode(text),
      });
      expect(checked.ok).toBe(true);
    }
  });

  it("have no negative case: the contract puts no rule on them", () => {
    for (const id of ["renderRaw", "createReport", "anyText"])
      expect(negativesPossible(operation(id), contract.document)).toBe(false);
  });

  it("reach a correct server on loopback, every operation that can be generated exercised", async () => {
    seen.length = 0;
    const { summary } = await runConformance({
      target: url,
      contract,
      noFixtures: true,
      generate: { count: 5 },
      seed: 9n,
    });
    expect(summary.exitCode).toBe(0);
    expect(summary.coverage.operations.exercised).toBe(3);
    const raw = seen.filter((s) => s.path === "/markdown/raw");
    expect(raw.length).toBeGreaterThan(0);
    for (const s of raw) expect([s.contentType, s.body.startsWith("#")], s.body).toEqual(["text/plain", true]);
    const reports = seen.filter((s) => s.path === "/reports");
    expect(reports.length).toBeGreaterThan(0);
    for (const s of reports) {
      expect(s.contentType).toBe("application/json");
      expect(JSON.parse(s.body)).toHaveProperty("start_date");
    }
  });
});
