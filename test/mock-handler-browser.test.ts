import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockHandler } from "../src/handler/index.js";
import { KIT_ROOT } from "../src/paths.js";
import { launchBrowser } from "./browser-launcher.js";
import {
  MULTI_OP_SERVED,
  multiOpDocument,
  walkScenario,
  type ScenarioAnswer,
  type ScenarioRequest,
} from "./mock-scenario.js";

// createMockHandler for the multi-operation spec where frontend tests run it, in headless Chromium:
// in the page from the built bundle (behind Mock Service Worker's browser worker), in a service worker
// of its own, and in the test process behind Playwright's page.route. Each walks test/mock-scenario.ts,
// as src/handler/mock-msw.test.ts does under MSW in Node, and must get the same answers.
const msw = dirname(createRequire(import.meta.url).resolve("msw/mockServiceWorker.js"));
const js = (file: string): { type: string; body: Buffer } => ({ type: "text/javascript", body: readFileSync(file) });
const files: Record<string, { type: string; body: Buffer }> = {
  "/": {
    type: "text/html; charset=utf-8",
    body: readFileSync(join(KIT_ROOT, "test", "browser", "mock-handler-page.html")),
  },
  "/plantstore-handler.js": js(join(KIT_ROOT, "dist", "browser", "plantstore-handler.js")),
  "/mock-handler-worker.js": js(join(KIT_ROOT, "test", "browser", "mock-handler-worker.js")),
  "/msw.js": js(join(msw, "iife", "index.js")),
  "/mockServiceWorker.js": js(join(msw, "mockServiceWorker.js")),
};
let site: Server | undefined;
let origin: string;
let browser: Browser | undefined;
let document: Record<string, unknown>;

beforeAll(async () => {
  document = await multiOpDocument();
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

/** Chromium logs every 4xx answer a fetch gets as an error; the walk expects a 404, a 400 and a 401. */
const EXPECTED_4XX_LOG = /^Failed to load resource: the server responded with a status of 4\d\d\b/;

/** A new page (its own browser context, so no service worker carries over) and what went wrong in it. */
async function openPage(): Promise<{ tab: Page; problems: string[] }> {
  const tab = await browser!.newPage();
  const problems: string[] = [];
  tab.on("pageerror", (error) => problems.push(`page error: ${String(error)}`));
  tab.on("console", (m) => {
    if (m.type() === "error" && !EXPECTED_4XX_LOG.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  return { tab, problems };
}

/** Sends a scenario request with the page's own fetch, to `base` + its path. */
function fetchInPage(tab: Page, base: string): (request: ScenarioRequest) => Promise<ScenarioAnswer> {
  return (request) =>
    tab.evaluate(
      async ({ url, method, headers, body }) => {
        const res = await fetch(url, { method, headers, body });
        return {
          status: res.status,
          contentType: res.headers.get("content-type"),
          wwwAuthenticate: res.headers.get("www-authenticate"),
          text: await res.text(),
        };
      },
      { url: base + request.path, method: request.method, headers: request.headers, body: request.body },
    );
}

describe("createMockHandler for the multi-operation spec in a real browser", () => {
  it("runs in the page from the built bundle, answering the page's fetch calls through MSW's worker", async () => {
    const { tab, problems } = await openPage();
    try {
      await tab.goto(`${origin}/`);
      await tab.waitForSelector("body[data-ready=yes]");
      const served = await tab.evaluate((openapi) => (globalThis as any).mockWithMsw(openapi), document);
      expect(served).toEqual(MULTI_OP_SERVED);
      await walkScenario(fetchInPage(tab, "http://api.test"));
      expect(problems).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("runs in a service worker of its own, importing the built bundle", async () => {
    const { tab, problems } = await openPage();
    try {
      await tab.goto(`${origin}/`);
      await tab.waitForSelector("body[data-ready=yes]");
      const served = await tab.evaluate((openapi) => (globalThis as any).mockInServiceWorker(openapi), document);
      expect(served).toEqual(MULTI_OP_SERVED);
      await walkScenario(fetchInPage(tab, origin));
      expect(problems).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("answers a page's cross-origin fetch calls through page.route, from the test process", async () => {
    const handler = createMockHandler({ document });
    const { tab, problems } = await openPage();
    try {
      // The pattern of docs/mocking.md: Playwright's request made a fetch Request for the handler.
      await tab.route("http://api.test/**", async (route, request) => {
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
      await walkScenario(fetchInPage(tab, "http://api.test"));
      // The palm and the cactus: the deleted fern and the refused create are not in the store.
      expect(handler.engine.store.size).toBe(2);
      expect(problems).toEqual([]);
    } finally {
      await tab.close();
    }
  });
});
