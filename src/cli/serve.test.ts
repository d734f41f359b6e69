import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { runCli, spawnCli, stopSpawned, type Spawned } from "../../test/process.js";
import { tempDir } from "../../test/temp-dir.js";

const sh = promisify(execFile);
let running: Spawned | undefined;
afterEach(async () => {
  await stopSpawned(running);
  running = undefined;
});

describe("plantstore serve", () => {
  it("prints a curl command that gets a 200, logs the request, and stops cleanly on SIGINT", async () => {
    running = spawnCli(["serve", "--port", "0"]);
    const [, url] = await running.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const [curl] = await running.waitFor(/^ {2}curl .*$/m);
    const { stdout } = await sh("sh", ["-c", `${curl.trim()} -w '\\n%{http_code}'`]);
    expect(stdout.trim().split("\n").pop()).toBe("200");
    expect(JSON.parse(stdout.trim().split("\n")[0]!)).toEqual({ name: "Boston fern", tag: "fern" });
    await running.waitFor(/POST \/plants 200/);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    running.child.kill("SIGINT");
    expect(await running.exited).toBe(0);
    expect(running.stdout()).toContain("SIGINT received");
    expect(running.stdout()).toContain("stopped");
  });

  it.each([
    ["serve", []],
    ["serve --spec", ["--spec", "spec/openapi.yaml"]],
  ])("%s logs every request, one line each, all before SIGTERM's report", async (_, spec) => {
    running = spawnCli(["serve", ...spec, "--port", "0"]);
    const [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
    const headers = { authorization: "Bearer plantstore-dev-token", "content-type": "application/json" };
    // Many at once, so that several lines share a turn of the server's event loop and a write.
    const statuses = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const res = await fetch(`${url}/plants`, { method: "POST", headers, body: `{"id":${i},"name":"Fern"}` });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
    const lines = running.stdout().split("\n");
    const logged = lines.filter((l) => /^\d{4}-\d\d-\d\dT[\d:.]+Z POST \/plants 200 \d+\.\dms$/.test(l));
    expect(logged).toHaveLength(60);
    const last = lines.lastIndexOf(logged.at(-1)!);
    expect(lines.slice(last + 1).filter((l) => l !== "")).toEqual([`SIGTERM received: stopping ${url}`, "stopped"]);
  });

  it("never prints a token the user passed, on the command line or in the environment", async () => {
    const secret = "s3cr3t-from-user-91d2";
    running = spawnCli(["serve", "--port", "0", "--token", secret]);
    const [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
    await running.waitFor(/curl .*PLANTSTORE_TOKEN/);
    const res = await fetch(`${url}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: '{"id":1,"name":"a"}',
    });
    expect(res.status).toBe(200);
    const bad = await fetch(`${url}/plants`, {
      method: "POST",
      headers: { authorization: "Bearer plantstore-dev-token", "content-type": "application/json" },
      body: '{"id":2,"name":"a"}',
    });
    expect(bad.status).toBe(401);
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
    expect(running.stdout() + running.stderr()).not.toContain(secret);

    // PLANTSTORE_TOKEN, as conformance reads it; the former PLANTSTORE_TOKENS still, with a warning.
    const one = spawnCli(["serve", "--port", "0"], { PLANTSTORE_TOKEN: secret });
    running = one;
    await one.waitFor(/curl .*PLANTSTORE_TOKEN/);
    one.child.kill("SIGTERM");
    await one.exited;
    expect(one.stdout()).toContain("Accepting the token in PLANTSTORE_TOKEN, which the command below sends.");
    expect(one.stdout() + one.stderr()).not.toContain(secret);
    for (const name of ["PLANTSTORE_TOKEN", "PLANTSTORE_TOKENS"]) {
      const fromEnv = spawnCli(["serve", "--port", "0"], { [name]: `${secret},other` });
      running = fromEnv;
      await fromEnv.waitFor(/curl .*PLANTSTORE_TOKEN/);
      fromEnv.child.kill("SIGTERM");
      await fromEnv.exited;
      expect(fromEnv.stdout() + fromEnv.stderr()).not.toContain(secret);
      expect(fromEnv.stdout()).toContain("2 token(s)");
      const warning = "warning: PLANTSTORE_TOKENS is read as PLANTSTORE_TOKEN, its name in every command; rename it";
      if (name === "PLANTSTORE_TOKENS") expect(fromEnv.stderr()).toContain(warning);
      else expect(fromEnv.stderr()).not.toContain("warning");
    }
  });

  it("takes basic credentials with --basic USER:PASSWORD for a basic-auth contract, and never prints them", async () => {
    const spec = join(tempDir("serve-basic-"), "basic.json");
    const thing = { type: "object", properties: { name: { type: "string" } } };
    writeFileSync(
      spec,
      JSON.stringify({
        openapi: "3.1.0",
        info: { title: "basic", version: "1" },
        components: { securitySchemes: { basic: { type: "http", scheme: "basic" } } },
        security: [{ basic: [] }],
        paths: {
          "/things": {
            get: {
              operationId: "listThings",
              responses: {
                "200": {
                  description: "ok",
                  content: { "application/json": { schema: { type: "array", items: thing } } },
                },
              },
            },
          },
        },
      }),
    );
    const password = "pa55-w0rd-7f3c";
    running = spawnCli(["serve", "--spec", spec, "--port", "0", "--basic", `ada:${password}`]);
    const [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
    await running.waitFor(/How each operation is served/);
    const as = (pair: string) =>
      fetch(`${url}/things`, { headers: { authorization: `Basic ${Buffer.from(pair).toString("base64")}` } });
    expect((await as(`ada:${password}`)).status).toBe(200);
    expect((await as("plantstore:plantstore-dev-token")).status).toBe(401);
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
    expect(running.stdout()).toContain("1 basic user:password pair(s) you configured");
    expect(running.stdout() + running.stderr()).not.toContain(password);

    const bad = await runCli(["serve", "--spec", spec, "--port", "0", "--basic", password]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--basic must be USER:PASSWORD");
    expect(bad.stdout + bad.stderr).not.toContain(password);
  });

  it("keeps serving when the reader of its output goes away (serve | head -1), and stops cleanly", async () => {
    running = spawnCli(["serve", "--port", "0"]);
    const [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
    // The pipe's reading end closed: every line the server writes from now on meets EPIPE.
    running.child.stdout.destroy();
    for (let i = 0; i < 3; i++) {
      const made = await fetch(`${url}/plants`, {
        method: "POST",
        headers: { authorization: "Bearer plantstore-dev-token", "content-type": "application/json" },
        body: `{"id":${i + 1},"name":"a"}`,
      });
      expect(made.status).toBe(200);
    }
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
    expect(running.stderr()).not.toContain("EPIPE");
  });

  it("allows a preflight asking for traceparent, and only listed headers with --cors-headers", async () => {
    const ask = async (url: string) => {
      const res = await fetch(`${url}/plants`, {
        method: "OPTIONS",
        headers: {
          origin: "http://app.test",
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization,content-type,traceparent",
        },
      });
      await res.arrayBuffer();
      return { status: res.status, allowed: res.headers.get("access-control-allow-headers") };
    };
    running = spawnCli(["serve", "--port", "0", "--quiet"]);
    const [, open] = await running.waitFor(/listening on (http:\/\/\S+)/);
    expect(await ask(open!)).toEqual({ status: 204, allowed: "authorization, content-type, prefer, traceparent" });
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);

    running = spawnCli(["serve", "--port", "0", "--quiet", "--cors-headers", "x-request-id"]);
    const [, strict] = await running.waitFor(/listening on (http:\/\/\S+)/);
    expect(await ask(strict!)).toEqual({ status: 204, allowed: "authorization, content-type, prefer" });
  });

  it.each([
    [["serve", "--port", "abc"], /--port must be an integer from 0 to 65535, got "abc"/],
    [["serve", "--prot", "1"], /--prot/],
    [["serve", "--max-body=-1"], /--max-body must be an integer/],
    [["serve", "--max-body", "-1"], /--max-body.*--max-body=-XYZ/],
    [["nope"], /unknown command "nope"/],
    [["serve", "--token="], /--token must be non-empty/],
    [["serve", "--token", " spaced "], /--token must be non-empty/],
    [["serve", "--cors-headers", "x-ok,bad header"], /--cors-headers: "bad header" is not a header name/],
  ])("%j exits 2 naming the problem", async (args, message) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it("names the environment variable, not a flag, when PLANTSTORE_PORT is wrong", async () => {
    const r = await runCli(["serve"], { PLANTSTORE_PORT: "abc" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PLANTSTORE_PORT must be an integer from 0 to 65535, got "abc"');
    expect(r.stderr).not.toContain("--port");
  });

  it("exits 2 with a clear message when the port is taken", async () => {
    running = spawnCli(["serve", "--port", "0"]);
    const [, port] = await running.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
    const r = await runCli(["serve", "--port", port!]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("address to listen on is in use");
    expect(r.stderr).toContain("--port 0 for any free port [PS_PORT_IN_USE]");
  });

  it("--help describes the flags and exits 0", async () => {
    const r = await runCli(["serve", "--help"]);
    expect(r.code).toBe(0);
    for (const flag of [
      "--host",
      "--port",
      "--token",
      "--cors-origin",
      "--cors-headers",
      "--max-items",
      "--max-plants",
      "--max-body",
      "--delay",
    ])
      expect(r.stdout).toContain(flag);
    const top = await runCli(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain("conformance");
  });

  it("--spec serves another document statefully, its start-up report saying how each operation is served", async () => {
    running = spawnCli(["serve", "--spec", "test/data/multi-op/plant-store-multi.yaml", "--port", "0", "--quiet"]);
    const [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
    await running.waitFor(/DELETE \/plants\/\{id\}\s+delete plants/);
    expect(running.stdout()).toMatch(/GET \/plants\s+list plants/);
    expect(running.stdout()).toContain("basic plantstore:plantstore-dev-token");
    const auth = { authorization: "Bearer plantstore-dev-token" };
    const made = await fetch(`${url}/plants`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: '{"id":18446744073709551,"name":"Fern"}',
    });
    expect(made.status).toBe(200);
    await made.arrayBuffer();
    const read = await fetch(`${url}/plants/18446744073709551`, { headers: auth });
    expect(await read.text()).toBe('{"name":"Fern","id":18446744073709551}');
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
  });

  it("--spec with --admin lists and empties the store, and --errors-on-demand answers what Prefer asks for", async () => {
    running = spawnCli([
      "serve",
      "--spec",
      "test/data/multi-op/plant-store-multi.yaml",
      "--port",
      "0",
      "--quiet",
      "--admin",
      "--errors-on-demand",
    ]);
    const [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
    await running.waitFor(/Admin surface on: GET or DELETE \S+\/__admin\/store/);
    const auth = { authorization: "Bearer plantstore-dev-token" };
    const made = await fetch(`${url}/plants`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: '{"id":9007199254740993,"name":"Fern"}',
    });
    await made.arrayBuffer();
    const listed = await fetch(`${url}/__admin/store`, { headers: auth });
    expect(await listed.text()).toBe(
      '{"count":1,"collections":[{"path":"/plants","parents":[],"items":[{"id":9007199254740993,"name":"Fern"}]}]}',
    );
    expect((await fetch(`${url}/__admin/store`, { headers: {} })).status).toBe(401);
    const emptied = await fetch(`${url}/__admin/store`, { method: "DELETE", headers: auth });
    expect(await emptied.json()).toEqual({ removed: 1 });
    const asked = await fetch(`${url}/plants/12`, { headers: { ...auth, prefer: "code=404" } });
    expect([asked.status, await asked.json()]).toEqual([
      404,
      {
        title: "Not Found",
        status: 404,
        detail: "an error answer asked for with Prefer: code=404",
        code: "PS_EXAMPLE_ERROR",
      },
    ]);
    const named = await fetch(`${url}/plants`, { headers: { ...auth, prefer: "example=two" } });
    expect(((await named.json()) as unknown[]).length).toBe(2);
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
  });
});

describe("plantstore serve --spec with --data and --save", () => {
  const spec = "test/data/multi-op/plant-store-multi.yaml";
  const auth = { authorization: "Bearer plantstore-dev-token" };

  it("starts with seed data, saves every change, and a restart starts from the saved store", async () => {
    const dir = tempDir("serve-save-");
    const data = join(dir, "seed.json");
    const save = join(dir, "store.json");
    writeFileSync(data, '{"/plants": [{"id": 9007199254740993, "name": "Fern"}, {"id": 2, "name": "Ivy"}]}');
    running = spawnCli(["serve", "--spec", spec, "--port", "0", "--quiet", "--data", data, "--save", save]);
    let [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
    await running.waitFor(/Started with 2 items from .*seed\.json/);
    const gone = await fetch(`${url}/plants/2`, {
      method: "DELETE",
      headers: { ...auth, "x-request-id": "00000000-0000-4000-8000-000000000001" },
    });
    expect(gone.status).toBe(204);
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
    expect(readFileSync(save, "utf8")).toContain("9007199254740993");
    running = spawnCli(["serve", "--spec", spec, "--port", "0", "--quiet", "--data", data, "--save", save]);
    [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
    await running.waitFor(/Started with 1 item from .*store\.json/);
    const list = await fetch(`${url}/plants`, { headers: auth });
    expect(await list.text()).toBe('[{"name":"Fern","id":9007199254740993}]');
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
  });

  it("the reference server saves too: a create survives a restart, and the repeated id gets 409", async () => {
    const save = join(tempDir("serve-ref-save-"), "plants.json");
    const headers = { ...auth, "content-type": "application/json" };
    const body = '{"id":9223372036854775807,"name":"Kept"}';
    running = spawnCli(["serve", "--port", "0", "--quiet", "--admin", "--save", save]);
    let [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
    await running.waitFor(/Saving the store to .*plants\.json after every change/);
    expect((await fetch(`${url}/plants`, { method: "POST", headers, body })).status).toBe(200);
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
    running = spawnCli(["serve", "--port", "0", "--quiet", "--admin", "--save", save]);
    [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
    await running.waitFor(/Started with 1 plant from .*plants\.json/);
    const listed = await fetch(`${url}/__admin/plants`, { headers: auth });
    expect(await listed.text()).toBe('{"count":1,"plants":[{"id":9223372036854775807,"name":"Kept"}]}');
    expect((await fetch(`${url}/plants`, { method: "POST", headers, body })).status).toBe(409);
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
  });

  it("refuses seed data the contract refuses, naming the file, the path and the item", async () => {
    const dir = tempDir("serve-seed-");
    const data = join(dir, "seed.json");
    writeFileSync(data, '{"/plants": [{"id": 1, "name": "Fern"}, {"id": "two", "name": "Ivy"}]}');
    const result = await runCli(["serve", "--spec", spec, "--port", "0", "--data", data]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/seed\.json: \/plants item 1: \[1\]\/id: must be an integer/);
  });
});
