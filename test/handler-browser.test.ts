import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KIT_ROOT } from "../src/paths.js";
import { createPlantStoreHandler } from "../src/server/index.js";
import { launchBrowser } from "./browser-launcher.js";

// createPlantStoreHandler where frontend tests run it: inside the page (the built browser bundle, no
// port, no Node) and in the test process behind Playwright's page.route, as the README shows.
const files: Record<string, { type: string; body: Buffer }> = {
  "/": { type: "text/html; charset=utf-8", body: readFileSync(join(KIT_ROOT, "test", "browser", "handler-page.html")) },
  "/plantstore-handler.js": {
    type: "text/javascript",
    body: readFileSync(join(KIT_ROOT, "dist", "browser", "plantstore-handler.js")),
  },
};
let site: Server | undefined;
let origin: string;
let browser: Browser | undefined;

beforeAll(async () => {
  const server = createServer((req, res) => {
    const file = files[req.url ?? ""];
    if (file === undefined) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": file.type }).end(file.body);
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  site = server;
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
});

describe("the fetch handler in a real browser", () => {
  it("runs inside the page from the built bundle: exact int64 ids, the contract's errors, the admin surface", async () => {
    const tab = await browser!.newPage();
    const errors: string[] = [];
    tab.on("pageerror", (e) => errors.push(String(e)));
    try {
      await tab.goto(`${origin}/`);
      await tab.waitForSelector("body[data-ready=yes]");
      const r = await tab.evaluate(() => (globalThis as any).runScenarios());
      expect(r.created).toEqual({
        status: 200,
        contentType: "application/json",
        text: '{"name":"Page fern","tag":"fern"}',
      });
      expect(r.invalid.status).toBe(400);
      expect(JSON.parse(r.invalid.text)).toMatchObject({
        error: 400,
        code: "PS_BODY_INVALID",
        violations: [{ location: "body/id" }],
      });
      expect(r.unauthorised.status).toBe(401);
      expect(JSON.parse(r.unauthorised.text)).toMatchObject({ error: 401, code: "PS_UNAUTHORIZED" });
      expect(r.listed.text).toBe('{"count":1,"plants":[{"id":9223372036854775807,"name":"Page fern","tag":"fern"}]}');
      expect(await tab.locator("#results li").count()).toBe(4);
      expect(errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("answers a page's cross-origin fetch through page.route, as the README's snippet does", async () => {
    const handler = createPlantStoreHandler();
    const tab = await browser!.newPage();
    try {
      // The README's snippet, word for word.
      await tab.route("http://plantstore.test/**", async (route, request) => {
        const headers = Object.fromEntries(
          Object.entries(await request.allHeaders()).filter(([n]) => !n.startsWith(":")),
        );
        const res = await handler(
          new Request(request.url(), {
            method: request.method(),
            headers,
            body: request.postDataBuffer() ?? undefined,
          }),
        );
        await route.fulfill({
          status: res.status,
          headers: Object.fromEntries(res.headers),
          body: Buffer.from(await res.arrayBuffer()),
        });
      });
      await tab.goto(`${origin}/`);
      const answers = await tab.evaluate(async () => {
        const post = async (token: string | null) => {
          const headers: Record<string, string> = {
            "content-type": "application/json",
            traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
          };
          if (token !== null) headers.authorization = `Bearer ${token}`;
          const res = await fetch("http://plantstore.test/plants", {
            method: "POST",
            headers,
            body: JSON.stringify({ id: 42, name: "Routed fern" }),
          });
          return { status: res.status, body: await res.json() };
        };
        return { created: await post("plantstore-dev-token"), refused: await post(null) };
      });
      expect(answers.created).toEqual({ status: 200, body: { name: "Routed fern" } });
      expect(answers.refused).toMatchObject({ status: 401, body: { error: 401, code: "PS_UNAUTHORIZED" } });
      expect(handler.store.size).toBe(1);
    } finally {
      await tab.close();
    }
  });
});
