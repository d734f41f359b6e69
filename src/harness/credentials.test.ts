import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { compileContract, type Contract } from "../contract/index.js";
import { KitError } from "../errors.js";
import { FAULTY } from "../../test/catalogue.js";
import { kitContract, TOKEN } from "../../test/helpers.js";
import { runCli } from "../../test/process.js";
import { tempDir } from "../../test/temp-dir.js";
import { startVariant } from "../../test/variant-server.js";
import {
  checkRunCredentials,
  credentialsFor,
  nearMiss,
  secretsToMask,
  unpresentableSecurity,
  type CredentialKind,
  type RunCredentials,
} from "./credentials.js";
import { prepareRequest } from "./prepare-request.js";
import type { Fixture } from "./case-types.js";
import { Random } from "./fresh.js";
import { consoleReporter } from "./reporters/console.js";
import { jsonReport } from "./reporters/json.js";
import { junitReport } from "./reporters/junit.js";
import type { RunEvent } from "./results.js";
import { runConformance } from "./run.js";
import { openApi } from "../../test/openapi-doc.js";

// A contract with every kind of security scheme, one operation per way of combining them.
const responses = {
  "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } },
  "401": { description: "no" },
};
const op = (operationId: string, security?: unknown[]) => ({
  get: { operationId, ...(security === undefined ? {} : { security }), responses },
});
const DOCUMENT = openApi(
  {
    "/bearer": op("bearer"),
    "/basic": op("basic", [{ basic: [] }]),
    "/custom": op("custom", [{ custom: [] }]),
    "/header-key": op("headerKey", [{ headerKey: [] }]),
    "/query-key": op("queryKey", [{ queryKey: [] }]),
    "/cookie-key": op("cookieKey", [{ cookieKey: [] }]),
    "/oauth": op("oauth", [{ oauth: ["read"] }]),
    "/oidc": op("oidc", [{ oidc: [] }]),
    "/and": op("and", [{ headerKey: [], cookieKey: [], bearer: [] }]),
    "/either": op("either", [{ queryKey: [] }, { basic: [] }]),
    "/optional": op("optional", [{}, { bearer: [] }]),
    "/open": op("open", []),
    "/mtls": op("mtls", [{ mtls: [] }]),
  },
  {
    title: "security",
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
        basic: { type: "http", scheme: "basic" },
        custom: { type: "http", scheme: "Token" },
        headerKey: { type: "apiKey", in: "header", name: "X-API-Key" },
        queryKey: { type: "apiKey", in: "query", name: "api_key" },
        cookieKey: { type: "apiKey", in: "cookie", name: "session" },
        oauth: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://id.test/token", scopes: {} } } },
        oidc: { type: "openIdConnect", openIdConnectUrl: "https://id.test/.well-known/openid-configuration" },
        mtls: { type: "mutualTLS" },
      },
    },
  },
);
const contract = compileContract(DOCUMENT, "security.json");

const CREDENTIALS = {
  bearer: "Bearer-Tok-1a",
  basic: "alice:Secret-pw1",
  custom: "Custom-Tok-3c",
  headerKey: "Header-Key-4d",
  queryKey: "Query-Key-5e",
  cookieKey: "Cookie-Key-6f",
  oauth: "OAuth-Tok-7g",
  oidc: "Oidc-Tok-8h",
} as const;
const RUN: RunCredentials = { credentials: CREDENTIALS, wrongToken: "wrong-0000" };
const b64 = (s: string): string => Buffer.from(s, "utf8").toString("base64");

function fixtureFor(c: Contract, operationId: string, credentials: CredentialKind, expect = "valid"): Fixture {
  return {
    id: `${operationId}-${credentials}`,
    description: "d",
    operationId,
    steps: [{ request: { credentials }, expect: { kind: expect as "valid" } }],
    file: "inline",
    operation: c.operation(operationId)!,
  };
}
const prepared = (operationId: string, kind: CredentialKind = "valid", run: RunCredentials = RUN) =>
  prepareRequest(fixtureFor(contract, operationId, kind), 0, new Map(), new Random(1n), run);
const wire = (operationId: string, kind?: CredentialKind, run?: RunCredentials) => {
  const p = prepared(operationId, kind, run);
  const { "accept-encoding": _ae, ...headers } = p.headers;
  return { path: p.path, headers, schemes: p.schemes };
};

describe("credentials for every scheme type", () => {
  it.each([
    ["http bearer", "bearer", { authorization: "Bearer Bearer-Tok-1a" }, "/bearer"],
    [
      "http basic: user:password base64-encoded",
      "basic",
      { authorization: `Basic ${b64("alice:Secret-pw1")}` },
      "/basic",
    ],
    ["another http scheme, under its own name", "custom", { authorization: "Token Custom-Tok-3c" }, "/custom"],
    ["apiKey in a header", "headerKey", { "x-api-key": "Header-Key-4d" }, "/header-key"],
    ["apiKey in the query", "queryKey", {}, "/query-key?api_key=Query-Key-5e"],
    ["apiKey in a cookie", "cookieKey", { cookie: "session=Cookie-Key-6f" }, "/cookie-key"],
    ["oauth2, as a bearer token", "oauth", { authorization: "Bearer OAuth-Tok-7g" }, "/oauth"],
    ["openIdConnect, as a bearer token", "oidc", { authorization: "Bearer Oidc-Tok-8h" }, "/oidc"],
  ])("%s", (_name, operationId, headers, path) => {
    expect(wire(operationId)).toEqual({ path, headers, schemes: [operationId] });
  });

  it("gives every scheme of an AND group its credential", () => {
    expect(wire("and")).toEqual({
      path: "/and",
      headers: { "x-api-key": "Header-Key-4d", cookie: "session=Cookie-Key-6f", authorization: "Bearer Bearer-Tok-1a" },
      schemes: ["headerKey", "cookieKey", "bearer"],
    });
  });

  it("uses the first alternative the run has credentials for", () => {
    expect(wire("either").path).toBe("/either?api_key=Query-Key-5e");
    const onlyBasic = { credentials: { basic: "bob:pw" }, wrongToken: "w" };
    expect(wire("either", "valid", onlyBasic)).toEqual({
      path: "/either",
      headers: { authorization: `Basic ${b64("bob:pw")}` },
      schemes: ["basic"],
    });
    // The one token serves every scheme: the first alternative is used.
    expect(wire("either", "valid", { token: "tok-A", wrongToken: "w" }).path).toBe("/either?api_key=tok-A");
  });

  it("calls an operation with {} among its alternatives without credentials when none are given", () => {
    const none = { wrongToken: "w" };
    expect(contract.operation("optional")!.authRequired).toBe(false);
    expect(wire("optional", "valid", none)).toEqual({ path: "/optional", headers: {}, schemes: [] });
    expect(wire("optional", "valid", { token: "tok-A", wrongToken: "w" }).headers).toEqual({
      authorization: "Bearer tok-A",
    });
    expect(wire("open", "valid", RUN)).toEqual({ path: "/open", headers: {}, schemes: [] });
    expect(() => wire("optional", "near-miss-case", none)).toThrow(/need a credential for bearer/);
  });

  it("makes each wrong kind from the scheme's own credential", () => {
    const auth = (operationId: string, kind: CredentialKind) => prepared(operationId, kind).headers.authorization;
    expect(auth("basic", "wrong")).toBe(`Basic ${b64("alice:wrong-0000")}`);
    expect(auth("basic", "other-scheme")).toBe("Bearer alice:Secret-pw1");
    expect(auth("basic", "lowercase-scheme")).toBe(`basic ${b64("alice:Secret-pw1")}`);
    expect(auth("basic", "empty-bearer")).toBe("Basic ");
    expect(auth("custom", "lowercase-scheme")).toBe("token Custom-Tok-3c");
    expect(auth("headerKey", "other-scheme")).toBe("Bearer Header-Key-4d");
    expect(prepared("headerKey", "other-scheme").headers["x-api-key"]).toBeUndefined();
    expect(prepared("queryKey", "wrong").path).toBe("/query-key?api_key=wrong-0000");
    expect(prepared("cookieKey", "none").headers.cookie).toBeUndefined();
  });

  it("makes near misses one edit away, the password's case for Basic, the first scheme of an AND group only", () => {
    expect(prepared("bearer", "near-miss-appended").headers.authorization).toBe("Bearer Bearer-Tok-1ax");
    expect(prepared("bearer", "near-miss-changed").headers.authorization).toBe("Bearer Bearer-Tok-1x");
    expect(prepared("bearer", "near-miss-truncated").headers.authorization).toBe("Bearer Bearer-Tok-1");
    expect(prepared("bearer", "near-miss-case").headers.authorization).toBe("Bearer BEARER-TOK-1A");
    expect(prepared("basic", "near-miss-case").headers.authorization).toBe(`Basic ${b64("alice:SECRET-PW1")}`);
    expect(prepared("basic", "near-miss-changed").headers.authorization).toBe(`Basic ${b64("alice:Secret-pwx")}`);
    expect(prepared("queryKey", "near-miss-truncated").path).toBe("/query-key?api_key=Query-Key-5");
    expect(prepared("cookieKey", "near-miss-appended").headers.cookie).toBe("session=Cookie-Key-6fx");
    expect(wire("and", "near-miss-case").headers).toEqual({
      "x-api-key": "HEADER-KEY-4D",
      cookie: "session=Cookie-Key-6f",
      authorization: "Bearer Bearer-Tok-1a",
    });
    // Without letters (for Basic: in the password) the case cannot change: the last character does.
    expect(nearMiss("12345", "near-miss-case")).toBe("1234x");
    expect(nearMiss("ALICE:1234", "near-miss-case", true)).toBe("ALICE:123x");
    expect(nearMiss("TOKEN", "near-miss-case")).toBe("token");
    expect(nearMiss("abcx", "near-miss-changed")).toBe("abcy");
    for (const kind of ["near-miss-appended", "near-miss-changed", "near-miss-truncated", "near-miss-case"] as const)
      for (const v of ["a", "Zx9", "user:pass", "12"]) expect(nearMiss(v, kind, v.includes(":"))).not.toBe(v);
  });

  it("sends nothing a scheme the harness cannot present (mutualTLS) needs, and says so before the run", () => {
    const mtls = contract.operation("mtls")!;
    expect(credentialsFor(mtls, "valid", { token: "t", wrongToken: "w" }).schemes).toEqual([]);
    expect(() => checkRunCredentials(contract, [mtls], { token: "t" })).toThrow(/mtls \(mutualTLS, which the harness/);
  });
});

describe("credentials are asked for only when an operation that will run requires them", () => {
  const ops = (...ids: string[]) => ids.map((id) => contract.operation(id)!);
  const messageOf = (f: () => void): string => {
    try {
      f();
    } catch (error) {
      expect(error).toBeInstanceOf(KitError);
      expect((error as KitError).code).toBe("PS_USAGE");
      return (error as Error).message;
    }
    throw new Error("no error");
  };

  it("needs none for operations without security or with {} among their alternatives", () => {
    expect(() => checkRunCredentials(contract, ops("open", "optional"), {})).not.toThrow();
  });

  it("names every operation and the schemes it needs when a credential is missing", () => {
    const message = messageOf(() =>
      checkRunCredentials(contract, ops("open", "basic", "either", "and"), { credentials: { bearer: "b" } }),
    );
    expect(message).toContain("--token is required");
    expect(message).toContain("basic (GET /basic) requires basic (http basic)");
    expect(message).toContain(
      "either (GET /either) requires queryKey (apiKey in query api_key), or basic (http basic)",
    );
    expect(message).toContain(
      "and (GET /and) requires headerKey (apiKey in header X-API-Key) and cookieKey (apiKey in cookie session) and bearer (http bearer)",
    );
    expect(message).not.toContain("open");
  });

  it('takes token: undefined or null from plain JavaScript as no token, never as the text "undefined"', async () => {
    const kit = await kitContract();
    for (const token of [undefined, null as unknown as string]) {
      const { summary } = await runConformance({ target: "http://127.0.0.1:1/", token, contract: kit });
      expect(summary).toMatchObject({ exitCode: 2, errorCode: "PS_USAGE" });
      expect(summary.runError).toMatch(
        /--token is required .*: createPlant \(POST \/plants\) requires bearerAuth \(http bearer\) \[PS_USAGE\]$/,
      );
    }
  });

  it("refuses credentials for schemes the spec does not have, and credentials that cannot be sent", () => {
    expect(messageOf(() => checkRunCredentials(contract, [], { credentials: { bearr: "x" } }))).toContain(
      "--credential bearr: no security scheme of that name (the spec's: bearer, basic,",
    );
    expect(messageOf(() => checkRunCredentials(contract, ops("basic"), { token: "no-colon" }))).toContain(
      "--token: basic (http basic) takes USER:PASSWORD",
    );
    expect(messageOf(() => checkRunCredentials(contract, ops("bearer"), { credentials: { bearer: "a b" } }))).toContain(
      "--credential bearer must be visible ASCII characters without spaces",
    );
    expect(messageOf(() => checkRunCredentials(contract, ops("cookieKey"), { token: "a;b" }))).toContain(
      "a cookie value cannot hold",
    );
    // Basic credentials are base64-encoded: a password may hold spaces and any letter.
    expect(() => checkRunCredentials(contract, ops("basic"), { token: "zoë:pass word" })).not.toThrow();
  });
});

/** A server that checks every scheme of DOCUMENT exactly; `flaw` may loosen one comparison. */
async function securedServer(
  options: { flaw?: (scheme: string, got: string, want: string) => boolean; echo?: boolean } = {},
) {
  const seen: { url: string; headers: IncomingMessage["headers"] }[] = [];
  const same = (scheme: string, got: string | undefined, want: string): boolean =>
    got !== undefined && (got === want || options.flaw?.(scheme, got, want) === true);
  const holds = (name: string, req: IncomingMessage, url: URL): boolean => {
    const want = CREDENTIALS[name as keyof typeof CREDENTIALS];
    const auth = req.headers.authorization ?? "";
    const under = (scheme: string) => new RegExp(`^${scheme} (.*)$`, "i").exec(auth)?.[1];
    switch (name) {
      case "basic":
        return same(name, Buffer.from(under("basic") ?? "", "base64").toString("utf8"), want);
      case "custom":
        return same(name, under("token"), want);
      case "headerKey":
        return same(name, req.headers["x-api-key"] as string | undefined, want);
      case "queryKey":
        return same(name, url.searchParams.get("api_key") ?? undefined, want);
      case "cookieKey":
        return same(name, /(?:^|; )session=([^;]*)/.exec(req.headers.cookie ?? "")?.[1], want);
      default:
        return same(name, under("bearer"), want);
    }
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    seen.push({ url: req.url ?? "", headers: req.headers });
    const route = contract.route(req.method ?? "GET", url.pathname);
    if (route.kind !== "found") return res.writeHead(404).end();
    const ok =
      route.operation.security.length === 0 ||
      route.operation.security.some((alt) => alt.every((s) => holds(s.name, req, url)));
    if (options.echo === true) {
      const echoed = { a: req.headers.authorization, k: req.headers["x-api-key"], c: req.headers.cookie, u: req.url };
      return res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify(echoed));
    }
    if (ok) return res.writeHead(200, { "content-type": "application/json" }).end("{}");
    res.writeHead(401, { "www-authenticate": "Bearer" }).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** Fixtures for every secured operation: valid, and every wrong kind expecting "unauthorised". */
function securityFixtures(): string {
  const dir = join(tempDir("plantstore-security-"), "fixtures");
  mkdirSync(dir);
  const write = (id: string, operation: string, credentials: CredentialKind, kind: string) =>
    writeFileSync(
      join(dir, `${id}.json`),
      JSON.stringify({ id, description: "d", operation, steps: [{ request: { credentials }, expect: { kind } }] }),
    );
  const wrongKinds: CredentialKind[] = [
    "none",
    "wrong",
    "other-scheme",
    "empty-bearer",
    "near-miss-appended",
    "near-miss-changed",
    "near-miss-truncated",
    "near-miss-case",
  ];
  for (const o of contract.operations) {
    if (o.operationId === "mtls") continue;
    write(`${o.operationId.toLowerCase()}-valid`, o.operationId, "valid", "valid");
    if (!o.authRequired) continue;
    write(`${o.operationId.toLowerCase()}-lowercase-scheme`, o.operationId, "lowercase-scheme", "valid");
    for (const k of wrongKinds) write(`${o.operationId.toLowerCase()}-${k}`, o.operationId, k, "unauthorised");
  }
  return dir;
}

describe("a run against a server that checks every scheme", () => {
  it("passes with each scheme's credential, and sends each where its scheme says", async () => {
    const server = await securedServer();
    try {
      const { summary, results } = await runConformance({
        target: server.url,
        credentials: CREDENTIALS,
        contract,
        fixtures: securityFixtures(),
      });
      const counted = results.flatMap((r) => r.steps.flatMap((s) => s.findings.filter((f) => f.counts)));
      expect(counted).toEqual([]);
      expect(summary.exitCode).toBe(0);
      expect(server.seen.map((s) => s.url)).toContain("/query-key?api_key=Query-Key-5e");
      expect(server.seen.map((s) => s.headers.cookie)).toContain("session=Cookie-Key-6f");
    } finally {
      await server.close();
    }
  });

  it.each([
    ["compares the Basic password without case", "basic", "basic-near-miss-case"],
    ["accepts a query key that starts with the real one", "queryKey", "querykey-near-miss-appended"],
    ["compares the cookie key's first 8 characters", "cookieKey", "cookiekey-near-miss-changed"],
    ["accepts any part of the header key from its start", "headerKey", "headerkey-near-miss-truncated"],
  ])("catches a server that %s", async (_name, scheme, fixture) => {
    const flaws: Record<string, (got: string, want: string) => boolean> = {
      basic: (got, want) => got.toLowerCase() === want.toLowerCase(),
      queryKey: (got, want) => got.startsWith(want),
      cookieKey: (got, want) => got.slice(0, 8) === want.slice(0, 8),
      headerKey: (got, want) => got !== "" && want.startsWith(got),
    };
    const server = await securedServer({ flaw: (s, got, want) => s === scheme && flaws[scheme]!(got, want) });
    try {
      const { summary, results } = await runConformance({
        target: server.url,
        credentials: CREDENTIALS,
        contract,
        fixtures: securityFixtures(),
      });
      const counted = results.flatMap((r) =>
        r.steps.flatMap((s) => s.findings.filter((f) => f.counts).map((f) => `${r.fixture} ${f.check}`)),
      );
      expect(counted).toContain(`${fixture} auth.rejected`);
      expect(summary.exitCode).toBe(1);
    } finally {
      await server.close();
    }
  });
});

describe("near-miss servers of the catalogue pass a suite without near misses", () => {
  it.each(FAULTY.filter((e) => e.caughtBy?.fixture.startsWith("auth-near-miss-")).map((e) => [e.name, e] as const))(
    "%s: only the near-miss fixtures catch it",
    async (_name, entry) => {
      const kit = await kitContract();
      const server = await startVariant(kit, entry.variant);
      try {
        const without = await runConformance({
          target: server.url,
          token: TOKEN,
          contract: kit,
          skip: ["auth-near-miss-*"],
        });
        expect(without.summary.exitCode).toBe(0);
        const only = await runConformance({
          target: server.url,
          token: TOKEN,
          contract: kit,
          only: ["auth-near-miss-*"],
        });
        expect(only.summary.exitCode).toBe(1);
        expect(only.results.find((r) => r.fixture === entry.caughtBy!.fixture)?.outcome).toBe("fail");
      } finally {
        await server.close();
      }
    },
  );
});

describe("every given secret is masked in every output", () => {
  it("console, JSON and JUnit carry no credential, password, base64 form or near miss; curl rebuilds them", async () => {
    const server = await securedServer({ echo: true });
    try {
      const events: RunEvent[] = [];
      const run = await runConformance(
        {
          target: server.url,
          token: "Shared-Token-9z",
          credentials: CREDENTIALS,
          contract,
          fixtures: securityFixtures(),
          evidence: "all",
          // One at a time, so the server's log lines up with the results.
          concurrency: 1,
        },
        (e) => events.push(e),
      );
      expect(run.summary.exitCode).toBe(1);
      const lines: string[] = [];
      events.forEach(consoleReporter((l) => lines.push(l), { color: false, verbose: true }));
      const outputs = [lines.join("\n"), jsonReport(run.summary, run.results), junitReport(run.summary, run.results)];
      const secrets = [...Object.values(CREDENTIALS), "Shared-Token-9z"];
      const forbidden = new Set<string>(["Secret-pw1", b64("alice:Secret-pw1"), "alice:SECRET-PW1"]);
      for (const s of secrets) {
        forbidden.add(s);
        for (const k of ["near-miss-appended", "near-miss-changed", "near-miss-truncated", "near-miss-case"] as const)
          forbidden.add(nearMiss(s, k, s.includes(":")));
      }
      for (const secret of forbidden) for (const out of outputs) expect(out).not.toContain(secret);
      for (const secret of secretsToMask({ token: "Shared-Token-9z", credentials: CREDENTIALS }))
        for (const out of outputs) expect(out).not.toContain(secret);
      // What the server got went out through the evidence: the echo proves the masks were needed.
      expect(outputs[1]).toContain("[REDACTED]");

      // Each reproduction names the variables, and the shell rebuilds exactly the request that was sent.
      const env = {
        PATH: process.env.PATH ?? "",
        PLANTSTORE_TOKEN: "Shared-Token-9z",
        ...Object.fromEntries(
          Object.entries(CREDENTIALS).map(([k, v]) => [`PLANTSTORE_CREDENTIAL_${k.toUpperCase()}`, v]),
        ),
      };
      const steps = run.results.flatMap((r) => r.steps.map((s) => [r.fixture, s] as const));
      const reproduced = [
        "bearer-near-miss-truncated",
        "bearer-near-miss-changed",
        "bearer-near-miss-case",
        "basic-valid",
        "basic-near-miss-appended",
        "querykey-valid",
        "cookiekey-near-miss-truncated",
        "and-valid",
      ];
      for (const id of reproduced) {
        const [, step] = steps.find(([f]) => f === id)!;
        expect(step.curl).toContain("${PLANTSTORE_");
        expect(step.curl).not.toContain("[REDACTED]");
        const words = await wordsOf(step.curl!, env);
        // The pre-flight's requests came first; then one request per step, in order (concurrency 1).
        const sentIndex = server.seen.length - steps.length + steps.findIndex(([f]) => f === id);
        const sent = server.seen[sentIndex]!;
        expect(words[4]).toBe(`${server.url}${sent.url}`);
        const headers = words.flatMap((w, i) => (words[i - 1] === "-H" ? [w] : []));
        for (const name of ["authorization", "x-api-key", "cookie"]) {
          const value = sent.headers[name];
          if (value !== undefined) expect(headers).toContain(`${name}: ${value}`);
        }
      }
    } finally {
      await server.close();
    }
  });
});

/** The words the shell hands to curl, with curl replaced by a function that prints them. */
async function wordsOf(command: string, env: Record<string, string>): Promise<string[]> {
  const script = `curl() { for a in "$@"; do printf '%s\\0' "$a"; done; }\n${command}`;
  const { stdout } = await promisify(execFile)("sh", ["-c", script], { env });
  return stdout.split("\0").slice(0, -1);
}

describe("the CLI asks for credentials only where the contract has security", () => {
  const spec = (dir: string, security: boolean) => {
    const file = join(dir, "spec.json");
    const document = {
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      ...(security
        ? {
            security: [{ "api-key": [] }],
            components: { securitySchemes: { "api-key": { type: "apiKey", in: "header", name: "X-Key" } } },
          }
        : {}),
      paths: { "/ping": op("ping") },
    };
    writeFileSync(file, JSON.stringify(document));
    const fixtures = join(dir, "fixtures");
    mkdirSync(fixtures);
    writeFileSync(
      join(fixtures, "ping.json"),
      JSON.stringify({
        id: "ping",
        description: "d",
        operation: "ping",
        steps: [{ request: {}, expect: { kind: "valid" } }],
      }),
    );
    return ["--spec", file, "--fixtures", fixtures];
  };
  const KEY = "Cli-Key-31337";

  it("runs a contract without security with no token, and names the operation and scheme a secured one needs", async () => {
    const server = createServer((req, res) =>
      req.headers["x-key"] === KEY || req.headers["x-key"] === undefined
        ? res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ got: req.headers["x-key"] }))
        : res.writeHead(401).end(),
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const open = await runCli(["conformance", "--target", target, ...spec(tempDir("ps-open-"), false)], {
        PLANTSTORE_TOKEN: "",
      });
      expect(open.stderr).toBe("");
      expect(open.code).toBe(0);

      const secured = spec(tempDir("ps-secured-"), true);
      const missing = await runCli(["conformance", "--target", target, ...secured], { PLANTSTORE_TOKEN: "" });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("--token is required");
      expect(missing.stderr).toContain("ping (GET /ping) requires api-key (apiKey in header X-Key)");

      const flagged = await runCli(
        ["conformance", "--target", target, ...secured, "--credential", `api-key=${KEY}`, "--verbose"],
        { PLANTSTORE_TOKEN: "" },
      );
      expect(flagged.code).toBe(0);
      expect(flagged.stdout).not.toContain(KEY);

      const fromEnv = await runCli(["conformance", "--target", target, ...secured, "--verbose"], {
        PLANTSTORE_TOKEN: "",
        PLANTSTORE_CREDENTIAL_API_KEY: KEY,
      });
      expect(fromEnv.code).toBe(0);
      expect(fromEnv.stdout).not.toContain(KEY);

      const typo = await runCli(["conformance", "--target", target, ...secured, "--credential", `apikey=${KEY}`], {
        PLANTSTORE_TOKEN: "",
      });
      expect(typo.code).toBe(2);
      expect(typo.stderr).toContain("--credential apikey: no security scheme of that name (the spec's: api-key)");
      expect(typo.stderr).not.toContain(KEY);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }, 30_000);
});

describe("security requirements the harness cannot present", () => {
  const doc = {
    ...DOCUMENT,
    paths: {
      "/bearer-and-basic": op("bearerAndBasic", [{ bearer: [], basic: [] }]),
      "/oauth-and-custom": op("oauthAndCustom", [{ oauth: [], custom: [] }]),
      "/key-named-authorization": op("keyAndBearer", [{ bearer: [], authKey: [] }]),
      "/two-or-one": op("twoOrOne", [{ bearer: [], oidc: [] }, { headerKey: [] }]),
      "/mtls": op("mtls", [{ mtls: [] }]),
      "/and": op("and", [{ headerKey: [], cookieKey: [], bearer: [] }]),
    },
    components: {
      securitySchemes: {
        ...DOCUMENT.components.securitySchemes,
        authKey: { type: "apiKey", in: "header", name: "Authorization" },
      },
    },
  };
  const c = compileContract(doc, "unpresentable.json");
  it.each([
    ["bearerAndBasic", /bearer and basic both need the header authorization/],
    ["oauthAndCustom", /oauth and custom both need the header authorization/],
    ["keyAndBearer", /bearer and authKey both need the header authorization/],
    ["mtls", /mtls \(mutualTLS, which the harness cannot present\)/],
    ["twoOrOne", undefined],
    ["and", undefined],
  ])("%s: %s", (operationId, reason) => {
    const why = unpresentableSecurity(c.operation(operationId)!);
    if (reason === undefined) expect(why).toBeUndefined();
    else expect(why).toMatch(reason);
  });

  it("a run leaves such an operation out with its reason, and never blames the target for it", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { summary } = await runConformance({
        target: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        contract: c,
        credentials: { ...CREDENTIALS, authKey: "Auth-Key-9i" },
        noFixtures: true,
        generate: { count: 3 },
        seed: 1n,
      });
      const left = summary.coverage.operations.notExercised.find((n) => n.operation === "bearerAndBasic");
      expect(left?.reason).toMatch(/its security cannot be presented by the harness: bearer and basic both need/);
      expect(summary.coverage.operations.notExercised.map((n) => n.operation).sort()).toEqual(
        ["bearerAndBasic", "keyAndBearer", "mtls", "oauthAndCustom"].sort(),
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
