import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer } from "../server/index.js";
import { launchBrowser } from "../../test/browser-launcher.js";
import { kitContract, TOKEN } from "../../test/helpers.js";
import { startProxy, type RunningProxy } from "./start-proxy.js";

// A real browser (headless Chromium, test/browser-launcher.ts) runs a page on one loopback origin that
// calls the reference server through the proxy on another: the POST with a bearer token and a JSON body
// is not a simple request, so the browser sends a CORS preflight first, and reads the answer only if
// the CORS headers the server wrote reach it through the proxy.
const contract = await kitContract();

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Plant Store through the proxy</title></head>
<body>
  <script>
    window.createPlant = async (target, token, plant) => {
      try {
        const res = await fetch(target + "/plants", {
          method: "POST",
          headers: { Authorization: "Bearer " + token, "Content-Type": "application/json" },
          body: JSON.stringify(plant),
        });
        return { status: res.status, contentType: res.headers.get("content-type"), body: await res.json() };
      } catch (error) {
        return { failed: String(error) };
      }
    };
  </script>
</body>
</html>`;

let site: Server | undefined;
let browser: Browser | undefined;
// One page server, two origins: "localhost" and "127.0.0.1" are different origins (and both differ from
// the proxy's, another port), so every call is cross-origin; the server allows only the first.
let allowedOrigin: string;
let refusedOrigin: string;

beforeAll(async () => {
  const server = createServer((req, res) => {
    if (req.url === "/") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  site = server;
  const { port } = server.address() as AddressInfo;
  allowedOrigin = `http://localhost:${port}`;
  refusedOrigin = `http://127.0.0.1:${port}`;
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  // beforeAll may have failed part-way: either may be undefined.
  await browser?.close();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
});

type PageAnswer = { status?: number; contentType?: string | null; body?: unknown; failed?: string };

/** Opens the page on `origin` in a fresh context and has it create a plant at `target`. */
async function createFromPage(origin: string, target: string, plant: object): Promise<PageAnswer> {
  const tab = await browser!.newPage();
  try {
    await tab.goto(`${origin}/`);
    return await tab.evaluate(([t, token, p]) => (globalThis as any).createPlant(t, token, p) as Promise<PageAnswer>, [
      target,
      TOKEN,
      plant,
    ] as const);
  } finally {
    await tab.close();
  }
}

/** The reference server allowing only `allowedOrigin`, with the proxy in front; both stopped after `fn`. */
async function withProxiedReference<T>(fn: (proxy: RunningProxy, stored: () => number) => Promise<T>): Promise<T> {
  const server = await startReferenceServer({ contract, port: 0, tokens: [TOKEN], corsOrigins: [allowedOrigin] });
  try {
    const proxy = await startProxy({ target: server.url, contract, port: 0 });
    try {
      return await fn(proxy, () => server.store.size);
    } finally {
      await proxy.stop();
    }
  } finally {
    await server.close(100);
  }
}

describe("a browser page calling the reference server through the proxy", () => {
  it("gets its plant: the preflight and the CORS headers pass through, the preflight is not judged, exit 0", async () => {
    await withProxiedReference(async (proxy, stored) => {
      const answer = await createFromPage(allowedOrigin, proxy.url, { id: 7, name: "Proxied fern", tag: "fern" });
      // Readable in the page only if Access-Control-Allow-Origin (and, for the preflight, -Methods and
      // -Headers) came back through the proxy as the server wrote them.
      expect(answer).toEqual({
        status: 200,
        contentType: "application/json",
        body: { name: "Proxied fern", tag: "fern" },
      });
      expect(stored()).toBe(1);

      const { summary, exchanges } = await proxy.stop();
      expect(exchanges.map((e) => [e.method, e.path, e.status])).toEqual([
        ["OPTIONS", "/plants", 204],
        ["POST", "/plants", 200],
      ]);
      expect(exchanges[0]).toMatchObject({
        operation: undefined,
        client: "error",
        server: "error",
        notJudged: { kind: "preflight" },
      });
      expect(exchanges[0]!.findings.map((f) => [f.side, f.check, f.severity, f.counts])).toEqual([
        ["client", "proxy.not-judged", "note", false],
      ]);
      expect(exchanges[1]).toMatchObject({ operation: "createPlant", client: "pass", server: "pass", findings: [] });
      expect(summary).toMatchObject({
        exchanges: 2,
        judged: 1,
        notJudged: 1,
        clientViolations: 0,
        serverViolations: 0,
        runError: undefined,
        exitCode: 0,
      });
      expect(JSON.stringify(exchanges)).not.toContain(TOKEN);
    });
  });

  it("is refused by the browser for an origin the server does not allow: the upstream's policy, no violation", async () => {
    // Alone, the refused page's traffic is only the preflight: nothing judged, so exit 2 (no verdict), not 0.
    await withProxiedReference(async (proxy, stored) => {
      const refused = await createFromPage(refusedOrigin, proxy.url, { id: 8, name: "Refused fern" });
      expect(refused.failed).toContain("TypeError");
      // The server's 204 carried no Access-Control-Allow-Origin, so the browser never sent the POST.
      expect(stored()).toBe(0);
      const { summary, exchanges } = await proxy.stop();
      expect(exchanges.map((e) => [e.method, e.status, e.client, e.server, e.notJudged?.kind])).toEqual([
        ["OPTIONS", 204, "error", "error", "preflight"],
      ]);
      expect(summary).toMatchObject({ exchanges: 1, judged: 0, clientViolations: 0, serverViolations: 0, exitCode: 2 });
      expect(summary.runError).toContain("nothing was judged");
    });

    // Beside a call the server allows, the refusal changes nothing in the verdict: exit 0.
    await withProxiedReference(async (proxy, stored) => {
      const refused = await createFromPage(refusedOrigin, proxy.url, { id: 9, name: "Refused fern" });
      expect(refused.failed).toContain("TypeError");
      const allowed = await createFromPage(allowedOrigin, proxy.url, { id: 10, name: "Allowed fern" });
      expect(allowed).toMatchObject({ status: 200, body: { name: "Allowed fern" } });
      expect(stored()).toBe(1);
      const { summary, exchanges } = await proxy.stop();
      expect(exchanges.map((e) => [e.method, e.status, e.server])).toEqual([
        ["OPTIONS", 204, "error"],
        ["OPTIONS", 204, "error"],
        ["POST", 200, "pass"],
      ]);
      expect(summary).toMatchObject({ exchanges: 3, judged: 1, serverViolations: 0, warnings: 0, exitCode: 0 });
    });
  });
});
