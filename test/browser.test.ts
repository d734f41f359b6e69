import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrism, type RunningPrism } from "../src/mock/prism.js";
import { KIT_ROOT } from "../src/paths.js";
import { DEV_TOKEN, startReferenceServer, type ReferenceServer } from "../src/server/index.js";
import { launchBrowser } from "./browser-launcher.js";
import { kitContract } from "./helpers.js";

// A real browser (Chromium from npm, or PLANTSTORE_CHROMIUM; driven by playwright-core) loads a page
// from one origin that calls the mocks on another origin, as a frontend team's app does.
const contract = await kitContract();
let page: Server;
let pageOrigin: string;
let browser: Browser;
let reference: ReferenceServer;
let prism: RunningPrism;

beforeAll(async () => {
  const html = readFileSync(join(KIT_ROOT, "test", "browser", "page.html"));
  page = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html));
  await new Promise<void>((resolve, reject) => page.once("error", reject).listen(0, "127.0.0.1", resolve));
  // "localhost" and "127.0.0.1" are different origins, so every call below is cross-origin.
  pageOrigin = `http://localhost:${(page.address() as AddressInfo).port}`;
  // Each is kept as soon as it is up, and all are awaited, so afterAll stops what started even if one failed.
  const started = await Promise.allSettled([
    startReferenceServer({ contract, port: 0, errorsOnDemand: true }).then((s) => (reference = s)),
    startPrism({ port: 0 }).then((p) => (prism = p)),
    launchBrowser().then((b) => (browser = b)),
  ]);
  const failed = started.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}, 120_000);

afterAll(async () => {
  // beforeAll may have failed part-way: any of these may be undefined.
  await browser?.close();
  await Promise.all([
    reference?.close(100),
    prism?.stop(),
    new Promise<void>((resolve) => (page ? page.close(() => resolve()) : resolve())),
  ]);
});

async function scenarios(target: string): Promise<Record<string, any>> {
  const tab = await browser.newPage();
  try {
    await tab.goto(`${pageOrigin}/`);
    const results = await tab.evaluate(([t, token]) => (globalThis as any).runScenarios(t, token), [
      target,
      DEV_TOKEN,
    ] as const);
    expect(await tab.locator("#results li").count()).toBe(3);
    return results;
  } finally {
    await tab.close();
  }
}

describe("a browser page on another origin", () => {
  it("gets the plant, the documented 400 and the auth error from the reference server", async () => {
    const r = await scenarios(reference.url);
    expect(r.created).toMatchObject({
      status: 200,
      contentType: "application/json",
      body: { name: "Browser fern", tag: "fern" },
    });
    expect(r.error400).toMatchObject({ status: 400, body: { error: 400 } });
    expect(typeof r.error400.body.message).toBe("string");
    expect(r.unauthorised).toMatchObject({ status: 401, body: { error: 401, code: "PS_UNAUTHORIZED" } });
    expect(reference.store.size).toBe(1);
  });

  it("gets the plant, the documented 400 and the auth error from the Prism mock", async () => {
    const r = await scenarios(prism.url);
    expect(r.created).toMatchObject({ status: 200, body: { name: "Boston fern", tag: "fern" } });
    expect(r.error400).toMatchObject({ status: 400, body: { error: 400, message: "Unexpected error" } });
    expect(r.unauthorised).toMatchObject({ status: 401 });
  });

  it("is refused by the reference server when its origin is not in --cors-origin", async () => {
    const strict = await startReferenceServer({ contract, port: 0, corsOrigins: ["http://app.example"] });
    try {
      const r = await scenarios(strict.url);
      expect(r.created.failed).toContain("TypeError");
    } finally {
      await strict.close(100);
    }
  });
});
