import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer } from "../src/index.js";
import { KIT_ROOT } from "../src/paths.js";
import { docFiles, runnableBlocks } from "./docs-blocks.js";
import { runCli, spawnCli, stopSpawned, type CliPlace, type Spawned } from "./process.js";
import { BLOCK_LIMIT_MS, blockProblem } from "./run-block.js";

// The kit as a user gets it: `npm pack` (of the build `npm test` just made), then `npm ci --omit=dev`
// of that tarball in an empty project, and every command run from there. Packages come from npm's
// cache where `npm ci` of the kit left them (--prefer-offline), from the registry otherwise.
const sh = promisify(execFile);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const dir = mkdtempSync(join(tmpdir(), "plantstore-package-"));
const consumer = join(dir, "consumer");
let place: CliPlace;
let running: Spawned | undefined;
const quiet = {
  SCARF_ANALYTICS: "false",
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
};
const inConsumer = { cwd: consumer, env: { ...process.env, ...quiet }, maxBuffer: 16 * 1024 * 1024 };

beforeAll(async () => {
  // --ignore-scripts: the build is the one `npm test` made; prepack would rebuild dist/ under the
  // feet of the CLI tests running beside this one.
  await sh(npm, ["pack", "--ignore-scripts", "--pack-destination", dir], {
    cwd: KIT_ROOT,
    env: { ...process.env, ...quiet },
  });
  const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (tarball === undefined) throw new Error(`npm pack left no tarball in ${dir}`);
  const { mkdirSync } = await import("node:fs");
  mkdirSync(consumer);
  const manifest = {
    name: "consumer",
    version: "1.0.0",
    private: true,
    type: "module",
    dependencies: { "plantstore-kit": `file:../${tarball}` },
  };
  writeFileSync(join(consumer, "package.json"), JSON.stringify(manifest, null, 2));
  await sh(npm, ["install", "--package-lock-only", "--prefer-offline"], inConsumer);
  await sh(npm, ["ci", "--omit=dev", "--prefer-offline"], inConsumer);
  place = { bin: join(consumer, "node_modules", "plantstore-kit", "dist", "src", "cli", "bin.js"), cwd: consumer };
}, 300_000);

afterAll(async () => {
  await stopSpawned(running);
  rmSync(dir, { recursive: true, force: true });
});

async function stop(s: Spawned): Promise<number | null> {
  s.child.kill("SIGTERM");
  return s.exited;
}

describe("the packed kit installed in an empty project with npm ci --omit=dev", () => {
  it("ships what it needs and nothing of the repo's own", async () => {
    const kit = join(consumer, "node_modules", "plantstore-kit");
    const top = readdirSync(kit).sort();
    expect(top).toEqual(["LICENSE", "README.md", "conformance", "dist", "docs", "fixtures", "package.json", "spec"]);
    expect(readdirSync(join(kit, "dist")).sort()).toEqual(["browser", "src"]);
    expect(readdirSync(join(kit, "dist", "browser"))).toEqual(["plantstore-handler.js"]);
    expect(readdirSync(join(kit, "conformance")).sort()).toEqual(["baselines", "fixture.schema.json"]);
  });

  it("npx plantstore --version prints the package's version", async () => {
    const { stdout } = await sh("npx", ["--no", "--", "plantstore", "--version"], inConsumer);
    const { version } = JSON.parse((await import("node:fs")).readFileSync(join(KIT_ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    expect(stdout.trim()).toBe(version);
  });

  it("serve answers a create, and conformance judges it with exit 0", async () => {
    running = spawnCli(["serve", "--port", "0", "--quiet"], {}, place);
    const [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
    const res = await fetch(`${url}/plants`, {
      method: "POST",
      headers: { authorization: "Bearer plantstore-dev-token", "content-type": "application/json" },
      body: '{"id":9223372036854775807,"name":"Packed fern"}',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: "Packed fern" });
    const run = await runCli(["conformance", "--target", url!], { PLANTSTORE_TOKEN: "plantstore-dev-token" }, place);
    expect(run.stdout).toContain("verdict: PASS");
    expect(run.code).toBe(0);
    expect(await stop(running)).toBe(0);
  }, 120_000);

  it("mock starts the real Prism, which answers the documented example", async () => {
    running = spawnCli(["mock", "--port", "0"], {}, place);
    const [, url] = await running.waitFor(/listening on (http:\/\/\S+)/, 60_000);
    const res = await fetch(`${url}/plants`, {
      method: "POST",
      headers: { authorization: "Bearer any", "content-type": "application/json" },
      body: '{"id":1,"name":"Fern"}',
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(await stop(running)).toBe(0);
  }, 120_000);

  it("proxy judges the traffic to the installed server, and writes its report when stopped", async () => {
    running = spawnCli(["serve", "--port", "0", "--quiet"], {}, place);
    const [, upstream] = await running.waitFor(/listening on (http:\/\/\S+)/);
    const report = join(consumer, "proxy.json");
    const proxy = spawnCli(["proxy", "--target", upstream!, "--port", "0", "--report", `json=${report}`], {}, place);
    try {
      const [, url] = await proxy.waitFor(/(http:\/\/127\.0\.0\.1:\d+)/);
      const res = await fetch(`${url}/plants`, {
        method: "POST",
        headers: { authorization: "Bearer plantstore-dev-token", "content-type": "application/json" },
        body: '{"id":77,"name":"Proxied fern"}',
      });
      expect([res.status, await res.text()]).toEqual([200, '{"name":"Proxied fern"}']);
      proxy.child.kill("SIGTERM");
      expect(await proxy.exited).toBe(0);
      expect(readFileSync(report, "utf8")).toContain("createPlant");
    } finally {
      await stopSpawned(proxy);
    }
    expect(await stop(running)).toBe(0);
  }, 120_000);

  it(
    "every runnable block of the README and docs/ marked `installed` runs as written in this project",
    async () => {
      const blocks = docFiles(KIT_ROOT).flatMap((file) => runnableBlocks(KIT_ROOT, file).filter((b) => b.installed));
      expect(blocks.length).toBeGreaterThan(0);
      const server = await startReferenceServer({ host: "127.0.0.1", port: 0 });
      try {
        for (const block of blocks)
          expect(await blockProblem(block, consumer, Number(new URL(server.url).port))).toBeUndefined();
      } finally {
        await server.close();
      }
      console.log(
        `package: ran ${blocks.length} runnable shell blocks marked installed, in a project that installed the kit`,
      );
    },
    BLOCK_LIMIT_MS * 3,
  );

  it("createPlantStoreHandler, from the package and from its browser-safe ./handler entry, answers a valid create with 200", async () => {
    const script = [
      'import { createPlantStoreHandler } from "plantstore-kit";',
      'import { createPlantStoreHandler as fromHandler } from "plantstore-kit/handler";',
      "for (const create of [createPlantStoreHandler, fromHandler]) {",
      "  const handler = create();",
      '  const res = await handler(new Request("http://plantstore.test/plants", { method: "POST", headers: { authorization: "Bearer plantstore-dev-token", "content-type": "application/json" }, body: \'{"id":9007199254740993,"name":"Fetched"}\' }));',
      "  console.log(res.status, await res.text(), handler.store.size);",
      "}",
    ].join("\n");
    writeFileSync(join(consumer, "handler.mjs"), script);
    const { stdout } = await sh(process.execPath, ["handler.mjs"], inConsumer);
    expect(stdout.trim().split("\n")).toEqual(['200 {"name":"Fetched"} 1', '200 {"name":"Fetched"} 1']);
  });

  it("runs docs/ci.md's library snippet as written: no target there, so it exits 2 and says why", async () => {
    const page = readFileSync(join(KIT_ROOT, "docs", "ci.md"), "utf8");
    const snippet = /```js\n([\s\S]*?)```/.exec(page)?.[1];
    expect(snippet).toContain('from "plantstore-kit"');
    writeFileSync(join(consumer, "snippet.mjs"), snippet!);
    const run = await sh(process.execPath, ["snippet.mjs"], {
      ...inConsumer,
      env: { ...process.env, PLANTSTORE_TOKEN: "t" },
    }).then(
      () => ({ code: 0, stderr: "" }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/the target could not be reached: .*ECONNREFUSED.*\[PS_TARGET_UNREACHABLE\]/);
  });

  it("is required by name from CommonJS, and its run resolves with exit 2 for a target that cannot be reached", async () => {
    // A default (CommonJS) project: Node 20.19 and later load the ES module with require().
    const script = [
      'const { runConformance, DEFAULT_SPEC } = require("plantstore-kit");',
      'runConformance({ target: "http://127.0.0.1:1", token: "t", spec: DEFAULT_SPEC })',
      "  .then(({ summary }) => console.log(summary.exitCode, summary.errorCode));",
    ].join("\n");
    writeFileSync(join(consumer, "use.cjs"), script);
    const { stdout, stderr } = await sh(process.execPath, ["use.cjs"], inConsumer);
    expect(stdout.trim()).toBe("2 PS_TARGET_UNREACHABLE");
    expect(stderr).toBe("");
  });

  it("is importable by name, with type declarations a TypeScript consumer compiles against", async () => {
    const script = [
      'import { loadContract, DEFAULT_SPEC, startReferenceServer } from "plantstore-kit";',
      "const contract = await loadContract(DEFAULT_SPEC);",
      "const server = await startReferenceServer({ contract, port: 0 });",
      'const res = await fetch(`${server.url}/plants`, { method: "POST", headers: { authorization: "Bearer plantstore-dev-token", "content-type": "application/json" }, body: JSON.stringify({ id: 7, name: "Imported" }) });',
      "console.log(res.status, contract.operations.map((o) => o.operationId).join());",
      "await server.close(100);",
    ].join("\n");
    writeFileSync(join(consumer, "use.mjs"), script);
    const { stdout } = await sh(process.execPath, ["use.mjs"], inConsumer);
    expect(stdout.trim()).toBe("200 createPlant");

    writeFileSync(
      join(consumer, "use.ts"),
      'import { type Contract, type RunSummary, runConformance } from "plantstore-kit";\nimport { createPlantStoreHandler, type PlantStoreHandler } from "plantstore-kit/handler";\nexport const handler: PlantStoreHandler = createPlantStoreHandler({ admin: true });\nexport const run: (c: Contract) => Promise<{ summary: RunSummary }> = (contract) => runConformance({ target: "http://127.0.0.1:1", token: "t", contract });\n',
    );
    const tsc = join(KIT_ROOT, "node_modules", "typescript", "bin", "tsc");
    const args = [
      "--noEmit",
      "--strict",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--target",
      "es2022",
      "--types",
      "node",
      "--typeRoots",
      join(KIT_ROOT, "node_modules", "@types"),
      "use.ts",
    ];
    const result = await sh(process.execPath, [tsc, ...args], inConsumer).then(
      () => "compiled",
      (e: { stdout?: string }) => e.stdout ?? String(e),
    );
    expect(result).toBe("compiled");
  }, 60_000);
});
