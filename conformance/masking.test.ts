import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { KIT_ROOT } from "../src/paths.js";
import { escapeRegExp } from "../src/regexp.js";
import { startReferenceServer } from "../src/server/index.js";
import { kitContract } from "../test/helpers.js";
import { runCli } from "../test/process.js";
import { tempDir } from "../test/temp-dir.js";
import type { CaseResult } from "../src/harness/results.js";
import { openApi } from "../test/openapi-doc.js";

// A short or common-word token (`valid`, `plant`, `x`) is masked where it is a secret, never in the
// harness's own words: fixture ids, check ids, paths, variable names.
const contract = await kitContract();
const dir = tempDir("plantstore-masking-");
const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" });
const KIT_IDS = readdirSync(join(KIT_ROOT, "fixtures"))
  .filter((f) => f.endsWith(".json"))
  .map((f) => JSON.parse(readFileSync(join(KIT_ROOT, "fixtures", f), "utf8")).id as string)
  .sort();

/** A target that answers every request with `status` and the request's credentials echoed in a JSON body. */
async function echoing(status: number) {
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on("end", () => {
      const auth = req.headers.authorization ?? "";
      const token = auth.replace(/^\S+ /, "");
      // An Error the contract documents for 400, so the status is what fails.
      const echo = { error: status, message: `token ${token} refused`, token, authorization: auth, url: req.url };
      res.writeHead(status, { "content-type": "application/json", "x-echo": auth }).end(JSON.stringify(echo));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/**
 * Every piece of evidence of a run, curl commands without their variables, and without `vocabulary`
 * (the contract's own words a request target holds).
 */
function evidence(results: readonly CaseResult[], vocabulary: readonly string[] = []): string[] {
  const own = (text: string): string => vocabulary.reduce((t, v) => t.replaceAll(v, ""), text);
  return results.flatMap((r) =>
    r.steps.flatMap((s) => [
      own(s.request.url),
      ...Object.entries(s.request.headers ?? {}).flat(),
      s.request.body ?? "",
      ...Object.entries(s.response?.headers ?? {}).flat(),
      s.response?.body ?? "",
      s.transportFailure ?? "",
      ...s.findings.map((f) => f.received),
      // curl's own flags (-X) and the variables are the command's words.
      own(s.curl ?? "")
        .replace(/^curl -sS -i -X \S+ /, "")
        .replace(/\$\(printf %s "\$\{PLANTSTORE_[A-Z_]+\}" \| [^)]*\)|\$\{PLANTSTORE_[A-Z_]+(%\?)?\}/g, "VAR"),
    ]),
  );
}

/** Where `secret` (as written, lower or upper case) stands as a whole token. */
const wholeToken = (secret: string): RegExp =>
  new RegExp(
    [secret, secret.toLowerCase(), secret.toUpperCase()]
      .map((s) => `(?<![A-Za-z0-9])${escapeRegExp(s)}(?![A-Za-z0-9])`)
      .join("|"),
  );

function reports(name: string) {
  const files = { json: join(dir, `${name}.json`), junit: join(dir, `${name}.xml`), md: join(dir, `${name}.md`) };
  const flags = [
    "--report",
    `json=${files.json}`,
    "--report",
    `junit=${files.junit}`,
    "--report",
    `markdown=${files.md}`,
  ];
  const read = () => ({
    json: JSON.parse(readFileSync(files.json, "utf8")) as { results: CaseResult[] },
    junit: xml.parse(readFileSync(files.junit, "utf8")).testsuites.testsuite,
    markdown: readFileSync(files.md, "utf8"),
  });
  return { flags, read };
}

describe("a short or common-word token masks the secret, not the words that contain its letters", () => {
  it.each(["valid", "plant"])(
    "--token %s against the reference server: fixture ids, test names and files intact; credentials masked",
    async (token) => {
      const server = await startReferenceServer({ contract, port: 0, tokens: [token] });
      try {
        const out = reports(`reference-${token}`);
        const r = await runCli(
          ["conformance", "--target", server.url, "--evidence", "all", "--verbose", ...out.flags],
          {
            PLANTSTORE_TOKEN: token,
          },
        );
        expect(r.code, r.stdout + r.stderr).toBe(0);
        const { json, junit, markdown } = out.read();
        // JUnit test names and files, JSON fixture ids and the console's case lines are the fixtures' own.
        expect(junit.testcase.map((t: { name: string }) => t.name).sort()).toEqual(KIT_IDS);
        for (const t of junit.testcase) expect(t.file).toMatch(/^fixtures\/[a-z0-9.-]+\.json$/);
        expect(json.results.map((c) => c.fixture).sort()).toEqual(KIT_IDS);
        for (const id of KIT_IDS) expect(r.stdout).toMatch(new RegExp(`PASS  ${escapeRegExp(id)} \\(`));
        expect(r.stdout + markdown).not.toContain("[REDACTED]-");
        expect(markdown).toContain("## Contract conformance: PASS");
        // The credential is masked where it was sent, near misses included; the wrong token is no secret.
        const sent = json.results.flatMap((c) => c.steps.map((s) => [c.fixture, s.request.headers?.authorization]));
        for (const [fixture, auth] of sent) {
          if (auth === undefined || fixture === "auth-empty-bearer") continue;
          expect(auth, fixture).toMatch(
            fixture === "auth-wrong-token" ? /^Bearer wrong-[0-9a-f]+$/ : /^(Bearer|bearer|Basic) \[REDACTED\]$/,
          );
        }
        for (const e of evidence(json.results)) expect(e).not.toMatch(wholeToken(token));
      } finally {
        await server.close(100);
      }
    },
    30_000,
  );

  it.each(["valid", "plant"])(
    "--token %s against a target that echoes it: evidence masked, messages, ids and ${PLANTSTORE_TOKEN} whole",
    async (token) => {
      const target = await echoing(400);
      try {
        const out = reports(`echo-${token}`);
        const r = await runCli(["conformance", "--target", target.url, "--only", "valid-basic", ...out.flags], {
          PLANTSTORE_TOKEN: token,
        });
        expect(r.code, r.stdout + r.stderr).toBe(1);
        const { json, junit, markdown } = out.read();
        const step = json.results[0]!.steps[0]!;
        expect(step.request.headers?.authorization).toBe("Bearer [REDACTED]");
        expect(JSON.parse(step.response!.body!)).toMatchObject({
          message: "token [REDACTED] refused",
          token: "[REDACTED]",
          authorization: "Bearer [REDACTED]",
          url: "/plants",
        });
        expect(step.response!.headers!["x-echo"]).toBe("Bearer [REDACTED]");
        expect(step.curl).toContain('-H "authorization: Bearer ${PLANTSTORE_TOKEN}"');
        expect(r.stdout).toContain('-H "authorization: Bearer ${PLANTSTORE_TOKEN}"');
        // The harness's own words: the case line, the check id, its message, the rule.
        expect(r.stdout).toContain("FAIL  valid-basic");
        expect(r.stdout).toContain("failure valid.accepted: a valid request got 400");
        expect(r.stdout).toMatch(/rule: +spec\/openapi\.yaml#\/paths\/~1plants\/post\/responses/);
        expect(junit.testcase.name).toBe("valid-basic");
        expect(junit.testcase.failure.type).toBe("valid.accepted");
        expect(junit.testcase.failure.message).toContain("a valid request got 400");
        expect(markdown).toContain("| valid-basic | contract | valid.accepted | a valid request got 400 |");
        expect(r.stdout + r.stderr + JSON.stringify(json) + markdown).not.toContain("[REDACTED]STORE");
        for (const e of evidence(json.results)) expect(e).not.toMatch(wholeToken(token));
      } finally {
        await target.close();
      }
    },
    30_000,
  );

  it("credentials of 1 and 4 characters (apiKey x, basic u:pw) echoed back, base64 included: masked, variables whole", async () => {
    const spec = join(dir, "keys.json");
    const responses = { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } };
    writeFileSync(
      spec,
      JSON.stringify(
        openApi(
          {
            "/x": { get: { operationId: "x", security: [{ key: [] }], responses } },
            "/basic": { get: { operationId: "basic", security: [{ basic: [] }], responses } },
          },
          {
            title: "keys",
            components: {
              securitySchemes: {
                key: { type: "apiKey", in: "query", name: "api_key" },
                basic: { type: "http", scheme: "basic" },
              },
            },
          },
        ),
      ),
    );
    const fixtures = join(dir, "key-fixtures");
    mkdirSync(fixtures);
    const fixture = (id: string, operation: string, credentials: string, kind = "valid") =>
      writeFileSync(
        join(fixtures, `${id}.json`),
        JSON.stringify({
          id,
          description: `x marks ${id}`,
          operation,
          steps: [{ request: { credentials }, expect: { kind } }],
        }),
      );
    fixture("x-valid", "x", "valid");
    fixture("x-near-miss-appended", "x", "near-miss-appended", "unauthorised");
    fixture("basic-x", "basic", "valid");
    const target = await echoing(500);
    try {
      const out = reports("keys");
      const r = await runCli(
        [
          "conformance",
          "--target",
          target.url,
          "--spec",
          spec,
          "--fixtures",
          fixtures,
          "--credential",
          "key=x",
          ...out.flags,
        ],
        { PLANTSTORE_TOKEN: "", PLANTSTORE_CREDENTIAL_BASIC: "u:pw" },
      );
      expect(r.code, r.stdout + r.stderr).toBe(1);
      const { json, junit } = out.read();
      const byId = new Map(json.results.map((c) => [c.fixture, c.steps[0]!]));
      expect(junit.testcase.map((t: { name: string }) => t.name).sort()).toEqual([
        "basic-x",
        "x-near-miss-appended",
        "x-valid",
      ]);
      expect(r.stdout).toContain("FAIL  x-valid");
      expect(r.stdout).toContain("FAIL  basic-x");
      // Where the credential is: the query value, Basic's base64 of user:password.
      expect(byId.get("x-valid")!.request.url).toBe(`${target.url}/x?api_key=[REDACTED]`);
      expect(byId.get("x-near-miss-appended")!.request.url).toBe(`${target.url}/x?api_key=[REDACTED]`);
      expect(byId.get("basic-x")!.request.headers?.authorization).toBe("Basic [REDACTED]");
      // The target's echo: the URL with the key, base64 of user:password.
      // In the target's own words the harness cannot tell the path's x from the key's: both are masked.
      expect(JSON.parse(byId.get("x-valid")!.response!.body!).url).toBe("/[REDACTED]?api_key=[REDACTED]");
      expect(JSON.parse(byId.get("basic-x")!.response!.body!)).toMatchObject({
        token: "[REDACTED]",
        authorization: "Basic [REDACTED]",
      });
      // The variables, whole: a curl command rebuilds each credential from the environment.
      expect(byId.get("x-valid")!.curl).toContain("/x?api_key=${PLANTSTORE_CREDENTIAL_KEY}");
      expect(byId.get("x-near-miss-appended")!.curl).toContain("/x?api_key=${PLANTSTORE_CREDENTIAL_KEY}x");
      expect(byId.get("basic-x")!.curl).toContain(
        '-H "authorization: Basic $(printf %s "${PLANTSTORE_CREDENTIAL_BASIC}" | base64)"',
      );
      expect(r.stdout).toContain("${PLANTSTORE_CREDENTIAL_KEY}");
      expect(r.stdout).toContain("${PLANTSTORE_CREDENTIAL_BASIC}");
      const all = evidence(json.results, ["/x?"]);
      for (const secret of ["x", "xx", "u:pw", "pw", Buffer.from("u:pw").toString("base64")])
        for (const e of all) expect(e).not.toMatch(wholeToken(secret));
    } finally {
      await target.close();
    }
  }, 30_000);
});
