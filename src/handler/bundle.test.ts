import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { readContractDocument } from "../contract/load-contract.js";
import { KIT_ROOT } from "../paths.js";

// The browser bundle as `npm run build` leaves it (npm test builds first, as the CLI tests need).
const run = promisify(execFile);
const BUNDLE = join(KIT_ROOT, "dist", "browser", "plantstore-handler.js");
const SCRIPT = join(KIT_ROOT, "scripts", "bundle-browser.mjs");

// Evaluates the bundle as an ES module in a fresh realm that has only web platform globals (no
// process, Buffer, require), linked to nothing (so any import it kept fails), and serves requests: the
// reference server's, and the mock engine's of a document given as JSON text (argv[2]).
const IN_A_WEB_REALM = `
import { readFileSync } from "node:fs";
import vm from "node:vm";
const web = { Request, Response, Headers, ReadableStream, TextEncoder, TextDecoder, URL, URLSearchParams, atob, btoa, crypto, setTimeout, clearTimeout, queueMicrotask, structuredClone, console };
const context = vm.createContext({ ...web });
const kit = new vm.SourceTextModule(readFileSync(process.argv[1], "utf8"), { context, identifier: "plantstore-handler.js" });
await kit.link((specifier) => { throw new Error("the bundle imports " + specifier); });
await kit.evaluate();
const { createPlantStoreHandler, DEV_TOKEN } = kit.namespace;
const handler = createPlantStoreHandler({ admin: true });
const headers = { "content-type": "application/json", authorization: "Bearer " + DEV_TOKEN };
const created = await handler(new Request("http://plantstore.test/plants", { method: "POST", headers, body: '{"id":9223372036854775807,"name":"a"}' }));
const invalid = await handler(new Request("http://plantstore.test/plants", { method: "POST", headers, body: '{"id":1}' }));
const list = await handler(new Request("http://plantstore.test/__admin/plants", { headers }));
const mock = kit.namespace.createMockHandler({ document: JSON.parse(process.argv[2]) });
await mock(new Request("http://api.test/plants", { method: "POST", headers, body: '{"id":9007199254740993,"name":"Fern"}' }));
const read = await mock(new Request("http://api.test/plants/9007199254740993", { headers }));
const nodeGlobals = vm.runInContext("[typeof process, typeof Buffer, typeof require, typeof global]", context);
console.log(JSON.stringify({ exports: Object.keys(kit.namespace).sort(), created: [created.status, await created.text()], invalid: invalid.status, list: await list.text(), read: [read.status, await read.text()], nodeGlobals }));
`;

describe("the browser bundle (dist/browser/plantstore-handler.js)", () => {
  it("is one self-contained ES module that serves requests with web platform globals only", async () => {
    const document = await readContractDocument(join(KIT_ROOT, "test", "data", "multi-op", "plant-store-multi.yaml"));
    const { stdout } = await run(process.execPath, [
      "--experimental-vm-modules",
      "--no-warnings",
      "--input-type=module",
      "-e",
      IN_A_WEB_REALM,
      BUNDLE,
      JSON.stringify(document),
    ]);
    expect(JSON.parse(stdout)).toEqual({
      exports: [
        "DEFAULT_MAX_BODY_BYTES",
        "DEFAULT_MAX_ITEMS",
        "DEFAULT_MAX_PLANTS",
        "DEV_TOKEN",
        "ERROR_ANSWERS",
        "KitError",
        "ResourceStore",
        "createMockHandler",
        "createPlantStoreHandler",
      ],
      created: [200, '{"name":"a"}'],
      invalid: 400,
      list: '{"count":1,"plants":[{"id":9223372036854775807,"name":"a"}]}',
      read: [200, '{"name":"Fern","id":9007199254740993}'],
      nodeGlobals: ["undefined", "undefined", "undefined", "undefined"],
    });
  });

  it("is not built when something on the handler's import path needs Node", async () => {
    const dir = mkdtempSync(join(tmpdir(), "plantstore-bundle-"));
    try {
      // The Node entry reaches node:http (the adapter), node:fs (--data and --save files) and swagger-parser.
      const entry = join(dir, "entry.js");
      writeFileSync(entry, `export * from ${JSON.stringify(join(KIT_ROOT, "dist", "src", "server", "index.js"))};\n`);
      const failure = await run(process.execPath, [SCRIPT, entry, join(dir, "out.js")]).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stderr).toContain("node:http is a Node built-in (imported by dist/src/server/http-adapter.js)");
      expect(failure?.stderr).toContain("node:fs is a Node built-in (imported by dist/src/server/save-file.js)");
      expect(failure?.stderr).toContain("not built");
      expect(existsSync(join(dir, "out.js"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
