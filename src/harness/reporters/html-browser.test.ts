import { copyFileSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../../../test/browser-launcher.js";
import { FAULTY } from "../../../test/catalogue.js";
import { kitContract, TOKEN } from "../../../test/helpers.js";
import { runCli } from "../../../test/process.js";
import { tempDir } from "../../../test/temp-dir.js";
import { json, startVariant, type Variant } from "../../../test/variant-server.js";

// The HTML report of a real run (the CLI against a faulty server) opened in the real browser the kit's
// tests use, from a file:// URL in an offline context whose every request other than the file itself
// is refused and recorded: the page must show the verdicts and the failing cases with nothing fetched,
// no script run and no CSP violation. The same run makes the README's screenshot when asked:
// PLANTSTORE_HTML_SCREENSHOT=docs/html-report.png (node scripts/screenshot-report.mjs sets it).

const contract = await kitContract();
const dir = tempDir("plantstore-html-browser-");
let browser: Browser | undefined;

beforeAll(async () => {
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

const entry = (name: string) => FAULTY.find((e) => e.name === name)!;
/** Two faults of the catalogue at once: `outer` sees `inner`'s answer as the reference one. */
const both =
  (outer: Variant, inner: Variant): Variant =>
  (request, body, reference, as) =>
    outer(
      request,
      body,
      () => (inner(request, body, reference, as) ?? reference()) as ReturnType<typeof reference>,
      as,
    );

/** Runs `plantstore conformance` against a server with `variant`, writing the HTML and JSON reports. */
async function run(name: string, variant: Variant, args: string[]): Promise<{ html: string; json: any }> {
  const server = await startVariant(contract, variant);
  try {
    const html = join(dir, `${name}.html`);
    const report = join(dir, `${name}.json`);
    const r = await runCli(
      ["conformance", "--target", server.url, ...args, "--report", `html=${html}`, "--report", `json=${report}`],
      { PLANTSTORE_TOKEN: TOKEN },
    );
    expect(r.code, r.stdout + r.stderr).toBe(1);
    return { html, json: JSON.parse(readFileSync(report, "utf8")) };
  } finally {
    await server.close();
  }
}

interface Opened {
  readonly page: Page;
  /** Every request the browser made. */
  readonly requests: string[];
  /** Requests refused because they were not for the file. */
  readonly refused: string[];
  /** Requests that failed, and why. */
  readonly failed: string[];
  /** Console errors and warnings, uncaught errors, dialogs. */
  readonly problems: string[];
  /** `securitypolicyviolation` events: directive and blocked URL. */
  violations(): Promise<string[]>;
  readonly context: BrowserContext;
}

/** Opens a report offline, every request but the file's refused and every request, problem and CSP violation recorded. */
async function open(file: string): Promise<Opened> {
  const url = pathToFileURL(file).href;
  const context = await browser!.newContext({ offline: true, viewport: { width: 1200, height: 900 } });
  const requests: string[] = [];
  const refused: string[] = [];
  const problems: string[] = [];
  const failed: string[] = [];
  context.on("request", (r) => requests.push(r.url()));
  context.on("requestfailed", (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
  await context.route("**/*", (route) => {
    const target = route.request().url();
    if (target === url) return route.continue();
    refused.push(target);
    return route.abort();
  });
  // Installed by the browser before the page's own content, outside its CSP.
  await context.addInitScript({
    content:
      "globalThis.__violations = []; document.addEventListener('securitypolicyviolation', (e) => " +
      "globalThis.__violations.push(e.violatedDirective + ' ' + e.blockedURI));",
  });
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("dialog", (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(url, { waitUntil: "load" });
  return {
    page,
    requests,
    refused,
    failed,
    problems,
    context,
    violations: () => page.evaluate("globalThis.__violations.slice()") as Promise<string[]>,
  };
}

/** What the page holds that could load, run or lead elsewhere: elements and attributes, and every link's target. */
async function activeContent(page: Page): Promise<{ loaders: number; hrefs: (string | null)[] }> {
  const loaders = await page
    .locator(
      "script, img, iframe, frame, object, embed, link, base, form, svg, video, audio, source, [src], [srcset], [style], [onerror], [onload], [onclick]",
    )
    .count();
  const hrefs = await Promise.all((await page.locator("[href]").all()).map((a) => a.getAttribute("href")));
  return { loaders, hrefs };
}

/** A PNG's width and height, from its IHDR chunk. */
function pngSize(file: string): { width: number; height: number; bytes: number } {
  const png = readFileSync(file);
  expect(png.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), bytes: png.length };
}

describe("the HTML report in a real browser, offline", () => {
  it("shows the verdict, each level's verdict and the failing cases with check, rule and curl; nothing loads or runs", async () => {
    // A server with two faults from the catalogue: a 500 to a JSON body sent as text/plain breaks the
    // contract; refusing an empty name breaks accepts-all-valid, which this run judges.
    const variant = both(entry("answers 500 to a wrong Content-Type").variant, entry("rejects empty names").variant);
    const { html, json: report } = await run("faulty", variant, ["--level", "accepts-all-valid"]);
    const failing = (report.results as any[]).filter((r) => r.outcome === "fail");
    expect(failing.map((r) => r.fixture)).toEqual(["invalid-content-type-text", "valid-name-empty"]);

    const opened = await open(html);
    const { page } = opened;
    try {
      expect(await page.title()).toBe("Contract conformance: FAIL (exit 1)");
      const verdict = await page.locator("#verdict").innerText();
      expect(verdict).toContain("Contract conformance: FAIL (exit 1)");
      expect(verdict).toContain("The target breaks the contract.");
      expect(verdict).toContain(`${report.summary.total} cases: ${report.summary.total - 2} passed, 2 failed`);
      const levels = await page.locator("#levels tbody tr").allInnerTexts();
      expect(levels.map((l) => l.replace(/\s+/g, " ").trim())).toEqual([
        "contract FAIL 1: invalid-content-type-text what the contract states: documented answers valid by their schemas, invalid requests refused",
        "accepts-all-valid FAIL 1: valid-name-empty every value the schema allows is accepted where the contract shows no further constraint",
      ]);
      const run = await page.locator("#run").innerText();
      expect(run).toContain(report.summary.target);
      expect(run).toContain(report.summary.seed);

      // Each failing case: its id, and its finding's check, level, message and rule as the JSON report has them; its curl.
      for (const r of failing) {
        const finding = r.steps[0].findings.find((f: any) => f.counts);
        const article = page.locator("#failing article", { hasText: r.fixture });
        expect(await article.count()).toBe(1);
        const text = await article.innerText();
        expect(text).toContain(r.fixture);
        expect(text).toContain(`${finding.check}: ${finding.message}`);
        expect(text).toContain(finding.level);
        expect(text).toContain(finding.rule);
        expect(text).toContain(finding.received);
        expect(await article.locator("pre.curl").innerText()).toBe(r.steps[0].curl);
        expect(text).not.toContain(TOKEN);
      }
      expect(await page.locator("#checks").innerText()).toMatch(/valid\.accepted\s+accepts-all-valid\s+1\s/);

      // Links lead within the page only: following one changes the fragment and fetches nothing.
      const content = await activeContent(page);
      expect(content.loaders).toBe(0);
      expect(content.hrefs.length).toBeGreaterThan(0);
      for (const href of content.hrefs) expect(href).toMatch(/^#case-\d+$/);
      await page.locator("#levels a", { hasText: "valid-name-empty" }).click();
      expect(new URL(page.url()).hash).toMatch(/^#case-\d+$/);
      expect(await page.locator(`${new URL(page.url()).hash} h3`).innerText()).toContain("valid-name-empty");

      expect(opened.requests).toEqual([pathToFileURL(html).href]);
      expect(opened.refused).toEqual([]);
      expect(opened.failed).toEqual([]);
      expect(opened.problems).toEqual([]);
      expect(await opened.violations()).toEqual([]);

      // The screenshot for the README: the top of the page down to the first failure's finding.
      await page.evaluate("window.scrollTo(0, 0)");
      const finding = (await page.locator("#failing .finding").first().boundingBox())!;
      const height = Math.ceil(finding.y + finding.height + 12);
      const png = join(dir, "html-report.png");
      await page.screenshot({ path: png, fullPage: true, clip: { x: 0, y: 0, width: 1200, height } });
      const size = pngSize(png);
      expect(size).toMatchObject({ width: 1200, height });
      expect(size.bytes).toBeLessThan(300_000);
      const wanted = process.env.PLANTSTORE_HTML_SCREENSHOT;
      if (wanted !== undefined && wanted !== "") copyFileSync(png, resolve(wanted));
    } finally {
      await opened.context.close();
    }
  }, 60_000);

  it("keeps a hostile target's markup, script URLs and links as text, and its CSP blocks what a page would load", async () => {
    const HOSTILE =
      `<img src="https://evil.example/i.png" onerror="alert(1)"><script>alert(2)</script>` +
      `"><a href="javascript:alert(3)">x</a><iframe src="//evil.example/f"></iframe><link rel=stylesheet href=https://evil.example/s.css>`;
    const hostile: Variant = (request, _body, reference) =>
      request.headers["content-type"] === "text/plain"
        ? json(500, { error: 500, message: HOSTILE }, { "x-note": HOSTILE.replace(/[\r\n]/g, "") })
        : reference();
    const { html } = await run("hostile", hostile, ["--only", "invalid-content-type-text"]);

    const opened = await open(html);
    const { page } = opened;
    try {
      expect(await page.locator("#verdict").innerText()).toContain("Contract conformance: FAIL (exit 1)");
      const article = await page.locator("#failing article").innerText();
      expect(article).toContain("invalid-content-type-text");
      expect(article).toContain(HOSTILE);
      expect(article).toContain(`x-note: ${HOSTILE}`);
      const content = await activeContent(page);
      expect(content.loaders).toBe(0);
      for (const href of content.hrefs) expect(href).toMatch(/^#case-\d+$/);
      expect(opened.requests).toEqual([pathToFileURL(html).href]);
      expect(opened.refused).toEqual([]);
      expect(opened.failed).toEqual([]);
      expect(opened.problems).toEqual([]);
      expect(await opened.violations()).toEqual([]);

      // The control: an image added to the page is refused by its CSP before any request, and reported.
      await page.evaluate(
        "(() => { const i = document.createElement('img'); i.src = 'https://evil.example/x.png'; document.body.append(i); })()",
      );
      await page.waitForFunction("globalThis.__violations.length > 0");
      expect(await opened.violations()).toEqual(["img-src https://evil.example/x.png"]);
      // The browser made the request, and its CSP stopped it before the network (the route never saw it).
      expect(opened.requests).toEqual([pathToFileURL(html).href, "https://evil.example/x.png"]);
      expect(opened.failed).toEqual(["https://evil.example/x.png csp"]);
      expect(opened.refused).toEqual([]);
      // And said so on the console, which the checks above found silent.
      expect(opened.problems).toHaveLength(1);
      expect(opened.problems[0]).toMatch(
        /^console error: .*'https:\/\/evil\.example\/x\.png'.*Content Security Policy/,
      );
    } finally {
      await opened.context.close();
    }
  }, 60_000);
});
