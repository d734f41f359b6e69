import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrism, type RunningPrism } from "../mock/prism.js";
import { KIT_ROOT } from "../paths.js";
import { kitContract, TOKEN } from "../../test/helpers.js";
import { rawValues, send, type SendOptions, type Sent } from "../../test/proxy-helpers.js";
import { loadBaseline } from "../harness/baseline.js";
import { startProxy, type RunningProxy } from "./start-proxy.js";
import type { ExchangeRecord } from "./types.js";

// The proxy in front of the real Prism mock of spec/openapi.yaml (@stoplight/prism-cli, static
// examples, as `plantstore mock` starts it). What Prism 5.14.2 actually answers, measured:
// - a valid create: 200 with the spec's example {"name":"Boston fern","tag":"fern"}, whatever was sent
//   (with `Prefer: dynamic=true`, a body made up from the Plant schema instead);
// - a body that breaks the schema, or a Content-Type other than application/json: 400 with the
//   documented example Error {"error":400,"message":"Unexpected error"} (and its sl-violations header),
//   never 422: the contract documents 400 for this operation, so that is what Prism picks;
// - malformed JSON: 400 with Prism's own body {"error":{"code":"invalid_json",...}}, which breaks the
//   contract's Error schema (the deviation conformance/baselines/prism.json lists);
// - no token: 401 application/problem+json. The contract documents no 401 but leaves 4XX answers open,
//   so the proxy notes it and does not fail the server;
// - a CORS preflight: 204.
const contract = await kitContract();
const auth = ["Authorization", `Bearer ${TOKEN}`];
const jsonType = ["Content-Type", "application/json"];
let prism: RunningPrism | undefined;

beforeAll(async () => {
  prism = await startPrism({ port: 0 });
}, 90_000);
afterAll(async () => {
  await prism?.stop();
});

/** A proxy in front of Prism for one test; the caller stops it (in finally). */
const proxyToPrism = (extra: { failOnClient?: boolean } = {}): Promise<RunningProxy> =>
  startProxy({ target: prism!.url, contract, port: 0, ...extra });

/** The answer's header fields as sent, without the ones that may differ between two sends (time, connection). */
const endToEnd = (r: Sent): string[] =>
  r.rawHeaders.flatMap((v, i, all) =>
    i % 2 === 1 || ["date", "connection", "keep-alive"].includes(v.toLowerCase()) ? [] : [v, all[i + 1]!],
  );

/** Sends the same request through the proxy and directly to Prism; both answers must be the same bytes. */
async function throughAndDirect(proxy: RunningProxy, options: SendOptions): Promise<Sent> {
  const through = await send(`${proxy.url}/plants`, options);
  const direct = await send(`${prism!.url}/plants`, options);
  expect(through.error).toBeUndefined();
  expect(through.status).toBe(direct.status);
  expect(through.body.equals(direct.body)).toBe(true);
  // Order, case and repeats of every end-to-end field kept (Prism writes "Content-type" so, for one).
  expect(endToEnd(through)).toEqual(endToEnd(direct));
  return through;
}

const checks = (e: ExchangeRecord, side: "client" | "server") =>
  e.findings.filter((f) => f.side === side).map((f) => [f.check, f.severity]);

describe("the proxy in front of the Prism mock", () => {
  it("forwards Prism's answers unchanged, blames invalid requests on the client, notes the 401, and exits 0", async () => {
    const proxy = await proxyToPrism();
    try {
      // Static mode: the same example for every valid create, so through and direct must match byte for byte.
      const created = await throughAndDirect(proxy, {
        method: "POST",
        headers: [...auth, ...jsonType],
        body: '{"id":1,"name":"Fern","tag":"f"}',
      });
      expect(created.status).toBe(200);
      expect(JSON.parse(created.body.toString())).toEqual({ name: "Boston fern", tag: "fern" });

      // A body Prism makes up from the schema: not reproducible directly, so what the client received is
      // compared with what the proxy counted and judged (the record keeps no body, only its size).
      const madeUp = await send(`${proxy.url}/plants`, {
        method: "POST",
        headers: [...auth, ...jsonType, "Prefer", "dynamic=true"],
        body: '{"id":2,"name":"Fern"}',
      });
      expect(madeUp.status).toBe(200);
      expect(madeUp.error).toBeUndefined();
      const plant = JSON.parse(madeUp.body.toString()) as { name: unknown; tag?: unknown };
      expect(typeof plant.name).toBe("string");
      expect(rawValues(madeUp.rawHeaders, "content-length")).toEqual([String(madeUp.body.length)]);

      // Invalid requests: Prism answers its documented 400 (the example Error), so only the client is at fault.
      const invalid: [string, string[]][] = [
        ['{"id":3}', jsonType],
        ['{"id":"three","name":"x"}', jsonType],
        ['{"id":3,"name":"x"}', ["Content-Type", "text/plain"]],
      ];
      for (const [body, type] of invalid) {
        const answer = await throughAndDirect(proxy, { method: "POST", headers: [...auth, ...type], body });
        expect(answer.status).toBe(400);
        expect(JSON.parse(answer.body.toString())).toEqual({ error: 400, message: "Unexpected error" });
        expect(rawValues(answer.rawHeaders, "sl-violations")).toHaveLength(1);
      }

      const unauthorised = await throughAndDirect(proxy, {
        method: "POST",
        headers: jsonType,
        body: '{"id":4,"name":"x"}',
      });
      expect(unauthorised.status).toBe(401);
      expect(rawValues(unauthorised.rawHeaders, "content-type")).toEqual(["application/problem+json"]);

      const preflight = await send(`${proxy.url}/plants`, {
        method: "OPTIONS",
        headers: ["Origin", "http://app.test", "Access-Control-Request-Method", "POST"],
      });
      expect(preflight.status).toBe(204);

      const { summary, exchanges } = await proxy.stop();
      expect(exchanges.map((e) => [e.method, e.status])).toEqual([
        ["POST", 200],
        ["POST", 200],
        ["POST", 400],
        ["POST", 400],
        ["POST", 400],
        ["POST", 401],
        ["OPTIONS", 204],
      ]);
      for (const e of exchanges.slice(0, 2)) {
        expect(e).toMatchObject({ operation: "createPlant", client: "pass", server: "pass", findings: [] });
      }
      expect(exchanges[0]!.responseBytes).toBe(created.body.length);
      expect(exchanges[1]!.responseBytes).toBe(madeUp.body.length);
      for (const e of exchanges.slice(2, 5)) {
        expect(e).toMatchObject({ client: "fail", server: "pass" });
        expect(checks(e, "client")).toEqual([["request.body", "failure"]]);
        expect(checks(e, "server")).toEqual([]);
        expect(e.findings.every((f) => !f.counts)).toBe(true);
      }
      // The contract leaves answers it does not show open, so Prism's 401 is a note, not the server's failure.
      expect(exchanges[5]).toMatchObject({ client: "pass", server: "pass" });
      expect(checks(exchanges[5]!, "server")).toEqual([["status.undocumented", "note"]]);
      expect(exchanges[6]).toMatchObject({
        client: "error",
        server: "error",
        notJudged: { kind: "preflight" },
      });

      expect(summary).toMatchObject({
        exchanges: 7,
        judged: 6,
        notJudged: 1,
        clientViolations: 3,
        clientExchanges: 3,
        serverViolations: 0,
        counted: { client: 0, server: 0 },
        runError: undefined,
        exitCode: 0,
      });
      expect(JSON.stringify(exchanges)).not.toContain(TOKEN);
    } finally {
      await proxy.stop();
    }
  });

  it("reports Prism's own body for malformed JSON as the server's violation (the baseline's deviation): exit 1", async () => {
    const proxy = await proxyToPrism();
    try {
      const answer = await throughAndDirect(proxy, {
        method: "POST",
        headers: [...auth, ...jsonType],
        body: "{not json",
      });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body.toString())).toEqual({ error: { code: "invalid_json", message: "Invalid JSON" } });

      const { summary, exchanges } = await proxy.stop();
      // Both sides broke the contract: the client sent no JSON, and Prism's 400 is not the documented Error.
      expect(exchanges[0]).toMatchObject({ status: 400, client: "fail", server: "fail" });
      expect(checks(exchanges[0]!, "client")).toEqual([["request.body", "failure"]]);
      const server = exchanges[0]!.findings.filter((f) => f.side === "server");
      expect(server.length).toBeGreaterThan(0);
      expect(server.every((f) => f.check === "response.schema" && f.counts)).toBe(true);
      // The same check the conformance suite's baseline records for Prism on malformed JSON.
      const known = loadBaseline(join(KIT_ROOT, "conformance", "baselines", "prism.json")).deviations.find(
        (d) => d.fixture === "invalid-malformed-json",
      );
      expect(known?.check).toBe("response.schema");
      expect(summary).toMatchObject({
        exchanges: 1,
        judged: 1,
        clientViolations: 1,
        serverExchanges: 1,
        counted: { client: 0, server: server.length },
        exitCode: 1,
      });
      expect(exchanges[0]!.curl).toContain("--data-binary '{not json'");
    } finally {
      await proxy.stop();
    }
  });

  it("fails the run on the client's invalid request with failOnClient, though Prism answered as documented", async () => {
    const proxy = await proxyToPrism({ failOnClient: true });
    try {
      const answer = await send(`${proxy.url}/plants`, {
        method: "POST",
        headers: [...auth, ...jsonType],
        body: '{"id":5}',
      });
      expect(answer.status).toBe(400);
      const { summary, exchanges } = await proxy.stop();
      expect(exchanges[0]).toMatchObject({ client: "fail", server: "pass" });
      expect(summary).toMatchObject({ serverViolations: 0, counted: { client: 1, server: 0 }, exitCode: 1 });
    } finally {
      await proxy.stop();
    }
  });
});
