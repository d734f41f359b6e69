import { generateKeyPairSync } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceServer, type ReferenceServer } from "../src/server/index.js";
import { KIT_ROOT } from "../src/paths.js";
import { kitContract } from "../test/helpers.js";
import { MULTI_OP_SPEC } from "../test/multi-op-server.js";
import { runCli } from "../test/process.js";
import { tempDir } from "../test/temp-dir.js";

// The certificate end to end: written by real conformance runs against the reference server, read
// back by `plantstore certificate verify` as a separate process.

const TOKEN = "tok-Cert-4d9a1e6b27";
const HMAC_KEY = "hmac-Key-5b2e9d0c41f7a3e8";
const VERSION = JSON.parse(readFileSync(join(KIT_ROOT, "package.json"), "utf8")).version as string;
const dir = tempDir("plantstore-certificate-");
const signer = generateKeyPairSync("ed25519");
const stranger = generateKeyPairSync("ed25519");
const PRIVATE = join(dir, "private.pem");
const PUBLIC = join(dir, "public.pem");
const OTHER = join(dir, "other.pem");
writeFileSync(PRIVATE, signer.privateKey.export({ type: "pkcs8", format: "pem" }));
writeFileSync(PUBLIC, signer.publicKey.export({ type: "spki", format: "pem" }));
writeFileSync(OTHER, stranger.publicKey.export({ type: "spki", format: "pem" }));
/** The private key's base64 body: it must appear nowhere. */
const PRIVATE_BODY = readFileSync(PRIVATE, "utf8")
  .replace(/-----[^-]+-----/g, "")
  .replace(/\s+/g, "");

const DIGEST = join(dir, "digest.json");
const HMAC = join(dir, "hmac.json");
const ED25519 = join(dir, "ed25519.json");
const BASELINE = join(KIT_ROOT, "conformance", "baselines", "prism.json");

let server: ReferenceServer;
/** Output of the three runs that wrote the certificates. */
const runs: { stdout: string; stderr: string }[] = [];

beforeAll(async () => {
  server = await startReferenceServer({ contract: await kitContract(), port: 0, tokens: [TOKEN] });
  const conformance = ["conformance", "--target", server.url, "--strict"];
  const [digest, hmac, ed] = await Promise.all([
    runCli([...conformance, "--certificate", DIGEST], { PLANTSTORE_TOKEN: TOKEN }),
    runCli([...conformance, "--certificate", HMAC, "--baseline", BASELINE], {
      PLANTSTORE_TOKEN: TOKEN,
      PLANTSTORE_CERTIFICATE_KEY: HMAC_KEY,
    }),
    runCli([...conformance, "--certificate", ED25519, "--signing-key", PRIVATE], { PLANTSTORE_TOKEN: TOKEN }),
  ]);
  for (const r of [digest!, hmac!, ed!]) {
    if (r.code !== 0) throw new Error(`conformance exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
    runs.push(r);
  }
});
afterAll(async () => {
  await server?.close(100);
});

const verify = (file: string, args: string[] = [], env: Record<string, string> = {}) =>
  runCli(["certificate", "verify", file, ...args], env);

/** A copy of a certificate with its text changed. */
function variant(file: string, name: string, change: (text: string) => string): string {
  const text = readFileSync(file, "utf8");
  const changed = change(text);
  expect(changed).not.toBe(text);
  const out = join(dir, name);
  writeFileSync(out, changed);
  return out;
}

describe("a certificate with a plain digest", () => {
  it("is written by the run, and verifies intact with a summary of what it states", async () => {
    expect(runs[0]!.stdout).toContain(`certificate written to ${DIGEST} (sha256)`);
    const r = await verify(DIGEST);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const certificate = JSON.parse(readFileSync(DIGEST, "utf8"));
    expect(certificate).toMatchObject({
      kit: { name: "plantstore-kit", version: VERSION },
      node: process.version,
      contract: { path: "spec/openapi.yaml", title: "Plant Store" },
      fixtures: {
        path: "fixtures",
        count: readdirSync(join(KIT_ROOT, "fixtures")).filter((f) => f.endsWith(".json")).length,
      },
      baseline: null,
      target: server.url,
      exitCode: 0,
      signature: { alg: "sha256" },
    });
    expect(certificate.levels.map((l: { level: string }) => l.level)).toEqual([
      "contract",
      "accepts-all-valid",
      "rejects-all-invalid",
      "http-rfc",
      "documented-statuses",
      // --strict runs every level; the Plant Store's one operation makes no sequence, so stateful passes.
      "stateful",
    ]);
    expect(r.stdout).toContain(`certificate ${DIGEST}: intact (exit 0)`);
    expect(r.stdout).toContain("sha256 digest only");
    expect(r.stdout).toContain(`kit: plantstore-kit ${VERSION} on Node ${process.version}`);
    expect(r.stdout).toContain(`sha256 ${certificate.contract.sha256}`);
    expect(r.stdout).toContain("levels: contract PASS, accepts-all-valid PASS");
    expect(r.stdout).toContain(`run: ${certificate.startedAt} against ${server.url}`);
    expect(r.stdout).toContain("verdict of the run: PASS (exit 0)");
  });

  it("matches the spec and fixtures the run used", async () => {
    const r = await verify(DIGEST, ["--spec", join(KIT_ROOT, "spec", "openapi.yaml"), "--fixtures", "fixtures"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("intact, matches --spec, --fixtures (exit 0)");
  });

  it("one byte changed is exit 1: a verdict, a count, a hash; the layout alone is not", async () => {
    const edits = [
      variant(DIGEST, "verdict.json", (t) => t.replace('"verdict": "pass"', '"verdict": "fail"')),
      variant(DIGEST, "count.json", (t) => t.replace(/"passed": (\d+)/, (_, n) => `"passed": ${Number(n) - 1}`)),
      variant(DIGEST, "hash.json", (t) => t.replace(/("sha256": ")(.)/, (_, p, c) => p + (c === "0" ? "1" : "0"))),
    ];
    const results = await Promise.all(edits.map((f) => verify(f)));
    for (const r of results) {
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toContain("NOT VERIFIED (exit 1)");
      expect(r.stdout).toContain("signature: the digest does not match the content: the certificate was edited");
    }
    const compact = variant(DIGEST, "compact.json", (t) => JSON.stringify(JSON.parse(t)));
    expect((await verify(compact)).code).toBe(0);
  });

  it("a different spec is exit 1; the same spec re-ordered, re-indented or as JSON is not", async () => {
    const yaml = readFileSync(join(KIT_ROOT, "spec", "openapi.yaml"), "utf8");
    const edited = join(dir, "edited.yaml");
    writeFileSync(edited, yaml.replace("description: Plants in the store", "description: Plants in the shop"));
    const reversed = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reversed)
        : v !== null && typeof v === "object"
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reversed(x)]),
            )
          : v;
    const asJson = join(dir, "spec.json");
    writeFileSync(asJson, JSON.stringify(reversed((await kitContract()).document), null, 4));
    const indented = join(dir, "indented.yaml");
    writeFileSync(indented, JSON.stringify(reversed((await kitContract()).document), null, 3));
    const [multi, changed, json, reindented] = await Promise.all(
      [MULTI_OP_SPEC, edited, asJson, indented].map((spec) => verify(DIGEST, ["--spec", spec])),
    );
    for (const r of [multi!, changed!]) {
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toMatch(/^contract\.sha256: the certificate's contract \([0-9a-f]{64}\) is not /m);
    }
    expect(multi!.stdout).toContain("Plant Store (multi-operation)");
    expect(json!.code, json!.stdout + json!.stderr).toBe(0);
    expect(reindented!.code, reindented!.stdout + reindented!.stderr).toBe(0);
  });

  it("a different fixture set is exit 1: one fixture removed, or one edited; re-indented is not", async () => {
    const copy = (name: string): string => {
      const to = join(dir, name);
      cpSync(join(KIT_ROOT, "fixtures"), to, { recursive: true });
      return to;
    };
    const removed = copy("fixtures-removed");
    const first = readdirSync(removed).sort()[0]!;
    rmSync(join(removed, first));
    const edited = copy("fixtures-edited");
    const file = join(edited, first);
    const fixture = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...fixture, description: `${fixture.description}.` }, null, 2));
    const reformatted = copy("fixtures-reformatted");
    for (const f of readdirSync(reformatted)) {
      const path = join(reformatted, f);
      writeFileSync(path, JSON.stringify(JSON.parse(readFileSync(path, "utf8")), null, 7));
    }
    const [a, b, c] = await Promise.all(
      [removed, edited, reformatted].map((fixtures) => verify(DIGEST, ["--fixtures", fixtures])),
    );
    for (const r of [a!, b!]) {
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toMatch(/^fixtures\.sha256: the certificate's fixture set \(\d+ files, [0-9a-f]{64}\) is not /m);
    }
    const count = readdirSync(join(KIT_ROOT, "fixtures")).filter((f) => f.endsWith(".json")).length;
    expect(a!.stdout).toContain(`(${count} files, `);
    expect(a!.stdout).toContain(`(${count - 1} files, `);
    expect(c!.code, c!.stdout + c!.stderr).toBe(0);
  });

  it("a key given for a digest-only certificate is exit 1: a digest shows nothing of who wrote it", async () => {
    const r = await verify(DIGEST, [], { PLANTSTORE_CERTIFICATE_KEY: HMAC_KEY });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("signature: a plain sha256 digest, but a key was given");
  });
});

describe("a certificate that cannot be read is exit 2", () => {
  it("no such file, not JSON, JSON that is not a certificate", async () => {
    const notJson = variant(DIGEST, "not-json.json", (t) => t.slice(0, -10));
    const other = join(dir, "other.json");
    writeFileSync(other, JSON.stringify({ summary: { total: 1 } }));
    const [missing, broken, foreign] = await Promise.all(
      [join(dir, "missing.json"), notJson, other].map((f) => verify(f)),
    );
    for (const r of [missing!, broken!, foreign!]) {
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toContain("[PS_FILE_UNREADABLE]");
    }
    expect(missing!.stderr).toContain("ENOENT");
    expect(broken!.stderr).toContain("not JSON");
    expect(foreign!.stderr).toContain("not a plantstore-kit conformance certificate");
  });
});

describe("a certificate signed with a shared HMAC key", () => {
  it("verifies with the key (and the baseline it used); a wrong key is 1; no key is 2 and says which", async () => {
    expect(runs[1]!.stdout).toMatch(/certificate written to .*hmac\.json \(hmac-sha256, key id [0-9a-f]{16}\)/);
    const baselineCopy = join(dir, "baseline-edited.json");
    const baseline = JSON.parse(readFileSync(BASELINE, "utf8"));
    writeFileSync(baselineCopy, JSON.stringify({ ...baseline, deviations: baseline.deviations.slice(1) }));
    const [right, withBaseline, otherBaseline, wrong, none] = await Promise.all([
      verify(HMAC, [], { PLANTSTORE_CERTIFICATE_KEY: HMAC_KEY }),
      verify(HMAC, ["--baseline", BASELINE], { PLANTSTORE_CERTIFICATE_KEY: HMAC_KEY }),
      verify(HMAC, ["--baseline", baselineCopy], { PLANTSTORE_CERTIFICATE_KEY: HMAC_KEY }),
      verify(HMAC, [], { PLANTSTORE_CERTIFICATE_KEY: `${HMAC_KEY}-not` }),
      verify(HMAC),
    ]);
    expect(right!.code, right!.stdout + right!.stderr).toBe(0);
    expect(right!.stdout).toMatch(/HMAC-SHA256 with key [0-9a-f]{16}: made by a holder of the shared key/);
    expect(withBaseline!.code).toBe(0);
    expect(otherBaseline!.code).toBe(1);
    expect(otherBaseline!.stdout).toMatch(/^baseline\.sha256: /m);
    expect(wrong!.code).toBe(1);
    expect(wrong!.stdout).toContain("signature: the HMAC does not match: signed with another key");
    expect(none!.code).toBe(2);
    expect(none!.stderr).toMatch(/signed with hmac-sha256 \(key id [0-9a-f]{16}\); set PLANTSTORE_CERTIFICATE_KEY/);
    const all = [runs[1]!, right!, withBaseline!, otherBaseline!, wrong!, none!]
      .map((r) => r.stdout + r.stderr)
      .join("\n");
    expect(all + readFileSync(HMAC, "utf8")).not.toContain(HMAC_KEY);
    expect(all + readFileSync(HMAC, "utf8")).not.toContain(TOKEN);
  });

  it("an edit is exit 1 even when the digest-only signature replaces the HMAC", async () => {
    const edited = variant(HMAC, "hmac-edited.json", (t) => t.replace('"exitCode": 0', '"exitCode": 1'));
    const stripped = variant(HMAC, "hmac-stripped.json", (t) => {
      const data = JSON.parse(t);
      return JSON.stringify({ ...data, signature: { alg: "sha256", value: data.signature.value } });
    });
    const env = { PLANTSTORE_CERTIFICATE_KEY: HMAC_KEY };
    const [a, b] = await Promise.all([verify(edited, [], env), verify(stripped, [], env)]);
    expect(a!.code).toBe(1);
    expect(a!.stdout).toContain("signature: the HMAC does not match the content: the certificate was edited");
    expect(b!.code).toBe(1);
  });
});

describe("a certificate signed with an Ed25519 private key", () => {
  it("verifies with its public key; another public key is 1; none is 2; the private key appears nowhere", async () => {
    expect(runs[2]!.stdout).toMatch(/certificate written to .*ed25519\.json \(ed25519, key id [0-9a-f]{16}\)/);
    const [right, fromPrivate, other, none, hmacCert] = await Promise.all([
      verify(ED25519, ["--public-key", PUBLIC]),
      // A private key's PEM holds its public key: the signer can check with what it has.
      verify(ED25519, ["--public-key", PRIVATE]),
      verify(ED25519, ["--public-key", OTHER]),
      verify(ED25519),
      verify(HMAC, ["--public-key", PUBLIC]),
    ]);
    expect(right!.code, right!.stdout + right!.stderr).toBe(0);
    expect(right!.stdout).toMatch(/Ed25519 signature by key [0-9a-f]{16}: made by the holder of the private key/);
    expect(fromPrivate!.code).toBe(0);
    expect(other!.code).toBe(1);
    expect(other!.stdout).toContain("signature: the Ed25519 signature does not match: signed by another key");
    expect(none!.code).toBe(2);
    expect(none!.stderr).toContain("give the signer's public key (--public-key FILE)");
    expect(hmacCert!.code).toBe(1);
    expect(hmacCert!.stdout).toContain("signature: signed with hmac-sha256");
    const edited = variant(ED25519, "ed-edited.json", (t) => t.replace(/"total": (\d+)/, '"total": 1$1'));
    const e = await verify(edited, ["--public-key", PUBLIC]);
    expect(e.code).toBe(1);
    const all = [runs[2]!, right!, fromPrivate!, other!, none!, e].map((r) => r.stdout + r.stderr).join("\n");
    expect(all + readFileSync(ED25519, "utf8")).not.toContain(PRIVATE_BODY);
    expect(all).not.toContain(PRIVATE_BODY.slice(0, 24));
  });
});

describe("conformance --certificate around the run", () => {
  it("a run that cannot start writes no certificate, and leaves none from an earlier run", async () => {
    const file = join(dir, "stale.json");
    writeFileSync(file, readFileSync(DIGEST));
    const r = await runCli(["conformance", "--target", "http://127.0.0.1:1", "--certificate", file], {
      PLANTSTORE_TOKEN: TOKEN,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("[PS_TARGET_UNREACHABLE]");
    expect(r.stderr).toContain(
      `no certificate written: the run could not start (removed ${file}, from an earlier run)`,
    );
    expect(existsSync(file)).toBe(false);
  });

  it("key and path mistakes are exit 2 before the run, and never quote the key", async () => {
    const notKey = join(dir, "not-a-key.pem");
    writeFileSync(notKey, "just-some-text-not-a-key");
    const target = ["conformance", "--target", server.url];
    const cert = join(dir, "never.json");
    const [noCert, both, short, bad, missing, folder] = await Promise.all([
      runCli([...target, "--signing-key", PRIVATE], { PLANTSTORE_TOKEN: TOKEN }),
      runCli([...target, "--certificate", cert, "--signing-key", PRIVATE], {
        PLANTSTORE_TOKEN: TOKEN,
        PLANTSTORE_CERTIFICATE_KEY: HMAC_KEY,
      }),
      runCli([...target, "--certificate", cert], { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_CERTIFICATE_KEY: "short-Key" }),
      runCli([...target, "--certificate", cert, "--signing-key", notKey], { PLANTSTORE_TOKEN: TOKEN }),
      runCli([...target, "--certificate", cert, "--signing-key", join(dir, "absent.pem")], { PLANTSTORE_TOKEN: TOKEN }),
      runCli([...target, "--certificate", join(dir, "no-such-folder", "c.json")], { PLANTSTORE_TOKEN: TOKEN }),
    ]);
    expect(noCert!.stderr).toContain("--signing-key signs a certificate: give --certificate FILE too");
    expect(both!.stderr).toContain("--signing-key and PLANTSTORE_CERTIFICATE_KEY are both set");
    expect(short!.stderr).toContain("PLANTSTORE_CERTIFICATE_KEY: the shared key must have at least 16 characters");
    expect(bad!.stderr).toContain("not a PEM private key");
    expect(missing!.stderr).toContain("[PS_FILE_UNREADABLE]");
    expect(folder!.stderr).toContain("[PS_REPORT_UNWRITABLE]");
    for (const r of [noCert!, both!, short!, bad!, missing!, folder!]) {
      expect(r.code, r.stdout + r.stderr).toBe(2);
      // Nothing ran: no case line, no verdict.
      expect(r.stdout).not.toContain("verdict:");
      expect(r.stdout + r.stderr).not.toContain("short-Key");
      expect(r.stdout + r.stderr).not.toContain("just-some-text");
    }
    expect(existsSync(cert)).toBe(false);
  });

  it("--help of both commands lists the flags", async () => {
    const [conformance, certificate, top] = await Promise.all([
      runCli(["conformance", "--help"]),
      runCli(["certificate", "--help"]),
      runCli(["--help"]),
    ]);
    expect(conformance.stdout).toContain("--certificate FILE");
    expect(conformance.stdout).toContain("--signing-key FILE");
    expect(certificate.code).toBe(0);
    for (const flag of [
      "verify FILE",
      "--spec",
      "--fixtures",
      "--baseline",
      "--public-key",
      "PLANTSTORE_CERTIFICATE_KEY",
    ]) {
      expect(certificate.stdout).toContain(flag);
    }
    expect(certificate.stdout).toContain("Exit codes: 0");
    expect(top.stdout).toContain("certificate   verify a certificate");
    const bad = await runCli(["certificate", "check", "x.json"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown subcommand "check"');
  });
});
