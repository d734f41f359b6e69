import { generateKeyPairSync } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadContract } from "../contract/index.js";
import { DEFAULT_SPEC, KIT_ROOT } from "../paths.js";
import { kitContract } from "../../test/helpers.js";
import { tempDir } from "../../test/temp-dir.js";
import {
  buildCertificate,
  canonicalJson,
  certificateLines,
  certificatePath,
  certificateText,
  describeBaseline,
  describeContract,
  describeFixtures,
  duplicateKeys,
  exactDecimalText,
  hmacKey,
  keyId,
  parseCanonicalInput,
  signCertificate,
  signingKeyFromPem,
  verifyCertificate,
  type Certificate,
  type CertificateInput,
  type SigningKey,
} from "./certificate.js";
import type { RunSummary } from "./results.js";
import { createRedactor } from "./redact.js";

const canonicalOf = (text: string): string => {
  const parsed = parseCanonicalInput(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return canonicalJson(parsed.value);
};

describe("canonical JSON (RFC 8785 style)", () => {
  it("sorts keys by UTF-16 code units and writes no white space (RFC 8785 section 3.2.3's example)", () => {
    const value = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    };
    const keys = [...canonicalJson(value).matchAll(/"([^"]*)":/g)].map((m) => m[1]);
    expect(keys).toEqual(["\\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"]);
    expect(canonicalJson({ b: [1, { d: true, c: null }], a: "x" })).toBe('{"a":"x","b":[1,{"c":null,"d":true}]}');
  });

  it("writes numbers and strings as ECMAScript does (RFC 8785 section 3.2.2's examples)", () => {
    expect(canonicalJson([333333333.33333329, 1e30, 4.5, 2e-3, 0.000000000000000000000000001, -0, 1e21])).toBe(
      "[333333333.3333333,1e+30,4.5,0.002,1e-27,0,1e+21]",
    );
    // Read from a text, an integer beyond 2^53 keeps all its digits (up to 40), however it is written.
    expect(canonicalOf("[333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001, -0, 1e21]")).toBe(
      "[333333333.3333333,1000000000000000000000000000000,4.5,0.002,1e-27,0,1000000000000000000000]",
    );
    expect(canonicalOf("[1e21]")).toBe(canonicalOf("[1000000000000000000000.0]"));
    expect(canonicalJson(["\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"/"])).toBe('["€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"]');
  });

  it("keeps integers beyond 2^53 exactly, and non-integers a double would turn into integers", () => {
    expect(canonicalOf('{"id": 9007199254740993}')).toBe('{"id":9007199254740993}');
    expect(canonicalOf('{"id": 9007199254740993}')).not.toBe(canonicalOf('{"id": 9007199254740992}'));
    // One value, written three ways: one text.
    expect(canonicalOf("[9223372036854775807]")).toBe("[9223372036854775807]");
    expect(canonicalOf("[9.223372036854775807e18]")).toBe("[9223372036854775807]");
    expect(canonicalOf("[1.00000000000000001]")).not.toBe(canonicalOf("[1]"));
    expect(canonicalOf("[1.00000000000000001]")).toBe(canonicalOf("[1.000000000000000010e0]"));
    expect(canonicalJson([2n ** 64n])).toBe("[18446744073709551616]");
  });

  it("normalises exact decimals: no leading or trailing zeros, one exponent", () => {
    expect(exactDecimalText("1.00000000000000001")).toBe("100000000000000001e-17");
    expect(exactDecimalText("-0012.3400e2")).toBe("-1234e0");
    expect(exactDecimalText("0.000")).toBe("0");
  });

  it("refuses what JSON does not have, naming where", () => {
    expect(() => canonicalJson({ a: [1, Number.NaN] })).toThrow("/a/1: NaN is not a JSON number");
    expect(() => canonicalJson({ when: new Date(0) })).toThrow("/when");
  });

  it("a key named __proto__ is data, never a prototype", () => {
    expect(canonicalOf('{"__proto__": 9007199254740993, "a": 1}')).toBe('{"__proto__":9007199254740993,"a":1}');
  });

  it("handles deep nesting without recursion", () => {
    const deep = "[".repeat(5000) + "]".repeat(5000);
    expect(canonicalJson(JSON.parse(deep))).toBe(deep);
  });

  it("finds members given twice, by JSON pointer", () => {
    expect(duplicateKeys('{"a": 1, "b": {"c": 1, "c": 2}, "l": [{"x": 1}, {"x": 2, "x": 3}], "a": 2}')).toEqual([
      "/b/c",
      "/l/1/x",
      "/a",
    ]);
    expect(duplicateKeys('{"a": "{\\"a\\": 1, \\"a\\": 2}", "b": ["a", "a"]}')).toEqual([]);
  });
});

describe("what a certificate states of its inputs", () => {
  it("the contract's hash survives re-ordering, re-indenting and YAML to JSON, not an edit", async () => {
    const dir = tempDir("plantstore-cert-spec-");
    const original = describeContract(await kitContract());
    // Keys reversed at every level, written as JSON with another indentation, once as .json, once as .yaml.
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
    const document = reversed((await kitContract()).document);
    for (const name of ["spec.json", "spec.yaml"]) {
      writeFileSync(join(dir, name), JSON.stringify(document, null, 4));
      expect(describeContract(await loadContract(join(dir, name))).sha256).toBe(original.sha256);
    }
    const edited = readFileSync(DEFAULT_SPEC, "utf8").replace(
      "description: Plants in the store",
      "description: Plants in the shop",
    );
    writeFileSync(join(dir, "edited.yaml"), edited);
    expect(describeContract(await loadContract(join(dir, "edited.yaml"))).sha256).not.toBe(original.sha256);
    expect(original).toMatchObject({ path: "spec/openapi.yaml", title: "Plant Store", openapi: "3.1.0" });
    expect(original.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a split spec is hashed as bundled", async () => {
    const split = describeContract(await loadContract(join(KIT_ROOT, "test", "data", "split-spec", "openapi.yaml")));
    expect(split.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("the fixture set's hash depends on each file's content and name, not its layout", () => {
    const dir = tempDir("plantstore-cert-fixtures-");
    const files = ["a.json", "b.json"];
    const write = (name: string, value: unknown, indent = 2): void =>
      writeFileSync(join(dir, name), JSON.stringify(value, null, indent));
    write(files[0]!, { id: "a", n: 1 });
    write(files[1]!, { id: "b", n: 2 });
    writeFileSync(join(dir, "notes.txt"), "not a fixture");
    const first = describeFixtures(dir, dir);
    expect(first).toMatchObject({ path: ".", count: 2 });
    write("b.json", { n: 2, id: "b" }, 0);
    expect(describeFixtures(dir, dir).sha256).toBe(first.sha256);
    write("b.json", { n: 3, id: "b" });
    expect(describeFixtures(dir, dir).sha256).not.toBe(first.sha256);
  });

  it("baselines are hashed canonically, with their count", () => {
    const dir = tempDir("plantstore-cert-baseline-");
    const file = join(dir, "baseline.json");
    writeFileSync(file, JSON.stringify({ deviations: [{ fixture: "x", check: "status-documented" }] }));
    expect(describeBaseline(file, dir)).toMatchObject({ path: "baseline.json", count: 1 });
  });

  it("paths are relative to the working folder, URLs lose their user info", () => {
    expect(certificatePath("/a/b/spec.yaml", "/a")).toBe("b/spec.yaml");
    expect(certificatePath("https://user:pw@example.com/spec.yaml")).toBe("https://example.com/spec.yaml");
  });
});

const SUMMARY: RunSummary = {
  startedAt: "2025-01-02T03:04:05.000Z",
  target: "http://127.0.0.1:8080",
  spec: DEFAULT_SPEC,
  seed: "42",
  total: 3,
  passed: 2,
  failed: 1,
  known: 0,
  errors: 0,
  failures: 1,
  warnings: 0,
  notes: 0,
  staleBaseline: [],
  levels: [
    { level: "contract", verdict: "pass", failedCases: [] },
    { level: "http-rfc", verdict: "fail", failedCases: ["auth-missing"] },
  ],
  durationMs: 12.7,
  runError: undefined,
  coverage: {
    operations: { total: 1, exercised: 1, notExercised: [] },
    statuses: { total: 2, exercised: 2, notExercised: [] },
    parameters: { total: 0, exercised: 0, notExercised: [] },
  },
  minCoverage: undefined,
  coverageShortfall: undefined,
  exitCode: 1,
};

async function input(key?: SigningKey): Promise<CertificateInput> {
  return {
    summary: SUMMARY,
    contract: describeContract(await kitContract()),
    fixtures: describeFixtures(join(KIT_ROOT, "fixtures")),
    baseline: null,
    key,
    kit: { name: "plantstore-kit", version: "9.9.9" },
    node: "v22.0.0",
  };
}

/** The certificate's text with one change made to its data. */
const edited = (c: Certificate, change: (data: Record<string, any>) => void): string => {
  const data = JSON.parse(certificateText(c));
  change(data);
  return JSON.stringify(data, null, 2);
};

describe("building and verifying a certificate", () => {
  const SECRET = "shared-secret-0123456789abcdef";
  const hmac = hmacKey(SECRET, "test");
  const pair = generateKeyPairSync("ed25519");
  const ed: SigningKey = { kind: "ed25519", privateKey: pair.privateKey };
  const other = generateKeyPairSync("ed25519").publicKey;

  it("states the run: kit, Node, inputs, seed, target, time, levels, counts, coverage, exit code", async () => {
    const c = buildCertificate(await input());
    expect(c).toMatchObject({
      certificate: "plantstore-kit conformance certificate",
      format: 1,
      kit: { name: "plantstore-kit", version: "9.9.9" },
      node: "v22.0.0",
      contract: { path: "spec/openapi.yaml", title: "Plant Store" },
      fixtures: { path: "fixtures", count: expect.any(Number) },
      baseline: null,
      selection: { only: [], skip: [] },
      generate: null,
      seed: "42",
      target: "http://127.0.0.1:8080",
      startedAt: "2025-01-02T03:04:05.000Z",
      durationMs: 13,
      levels: [
        { level: "contract", verdict: "pass", failedCases: 0 },
        { level: "http-rfc", verdict: "fail", failedCases: 1 },
      ],
      cases: { total: 3, passed: 2, failed: 1, known: 0, errors: 0 },
      coverage: { operations: { exercised: 1, total: 1 }, statuses: { exercised: 2, total: 2 } },
      minCoverage: null,
      exitCode: 1,
      runError: null,
      signature: { alg: "sha256", value: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(certificateLines(c)).toContain("levels: contract PASS, http-rfc FAIL (1 failing cases)");
    expect(certificateLines(c)).toContain("verdict of the run: FAIL (exit 1)");
    // A run of part of the fixtures says so.
    const part = buildCertificate({ ...(await input()), only: ["auth-*"], generate: 10 });
    expect(part).toMatchObject({ selection: { only: ["auth-*"], skip: [] }, generate: 10 });
    expect(certificateLines(part).find((l) => l.startsWith("fixtures:"))).toMatch(
      /; generated: 10 per operation and polarity; --only auth-\*$/,
    );
  });

  it("a digest: intact whatever the layout; any edit breaks it; but anyone can make a new one", async () => {
    const c = buildCertificate(await input());
    const text = certificateText(c);
    expect((await verifyCertificate(text)).status).toBe("intact");
    expect((await verifyCertificate(JSON.stringify(JSON.parse(text)))).status).toBe("intact");
    const broken = await verifyCertificate(text.replace('"verdict": "fail"', '"verdict": "pass"'));
    expect(broken).toMatchObject({ status: "mismatch", problems: [expect.stringMatching(/^signature: the digest/)] });
    // What a digest does not prove: whoever edits may digest again.
    const forged = edited(c, (d) => (d.levels[1].verdict = "pass"));
    const { signature: _, ...body } = JSON.parse(forged);
    const redigested = JSON.stringify({ ...body, signature: signCertificate(body, undefined) });
    expect((await verifyCertificate(redigested)).status).toBe("intact");
    // ...which a verifier with a key refuses: a digest shows nothing of who wrote it.
    const withKey = await verifyCertificate(redigested, { hmacKey: SECRET });
    expect(withKey.status).toBe("mismatch");
    expect(withKey.problems[0]).toMatch(/^signature: a plain sha256 digest, but a key was given/);
  });

  it("an HMAC: the right key verifies, a wrong key or an edit does not, no key cannot", async () => {
    const c = buildCertificate(await input(hmac));
    expect(c.signature).toMatchObject({ alg: "hmac-sha256", keyId: keyId(SECRET) });
    const text = certificateText(c);
    expect(text).not.toContain(SECRET);
    expect((await verifyCertificate(text, { hmacKey: SECRET })).status).toBe("intact");
    const wrong = await verifyCertificate(text, { hmacKey: `${SECRET}x` });
    expect(wrong.problems).toEqual([
      expect.stringMatching(/^signature: the HMAC does not match: signed with another key/),
    ]);
    const edit = await verifyCertificate(
      edited(c, (d) => (d.cases.passed = 3)),
      { hmacKey: SECRET },
    );
    expect(edit.problems).toEqual(["signature: the HMAC does not match the content: the certificate was edited"]);
    const none = await verifyCertificate(text);
    expect(none.status).toBe("key-needed");
    expect(none.problems[0]).toContain("set PLANTSTORE_CERTIFICATE_KEY");
    // The algorithm and key id are signed: turning the HMAC into a digest is seen by a verifier with the key.
    const swapped = edited(c, (d) => (d.signature = { alg: "sha256", value: d.signature.value }));
    expect((await verifyCertificate(swapped, { hmacKey: SECRET })).status).toBe("mismatch");
    const renamed = edited(c, (d) => (d.signature.keyId = "0000000000000000"));
    expect((await verifyCertificate(renamed, { hmacKey: SECRET })).status).toBe("mismatch");
  });

  it("an Ed25519 signature: its public key verifies, another does not, none cannot", async () => {
    const c = buildCertificate(await input(ed));
    expect(c.signature).toMatchObject({ alg: "ed25519", keyId: keyId(pair.publicKey) });
    const text = certificateText(c);
    const pem = pair.publicKey.export({ type: "spki", format: "pem" }).toString();
    expect((await verifyCertificate(text, { publicKey: pem })).status).toBe("intact");
    expect((await verifyCertificate(text, { publicKey: pair.publicKey })).status).toBe("intact");
    const wrong = await verifyCertificate(text, { publicKey: other });
    expect(wrong.problems).toEqual([
      expect.stringMatching(/^signature: the Ed25519 signature does not match: signed by another key/),
    ]);
    const edit = await verifyCertificate(
      edited(c, (d) => (d.exitCode = 0)),
      { publicKey: pem },
    );
    expect(edit.problems).toEqual([
      "signature: the Ed25519 signature does not match the content: the certificate was edited",
    ]);
    expect((await verifyCertificate(text)).status).toBe("key-needed");
    expect((await verifyCertificate(text, { hmacKey: SECRET })).problems[0]).toMatch(/signed with ed25519.*HMAC key/);
  });

  it("a member given twice is an edit, though the last one's value is the signed one", async () => {
    const c = buildCertificate(await input());
    const text = certificateText(c).replace('"exitCode": 1,', '"exitCode": 0, "exitCode": 1,');
    const r = await verifyCertificate(text);
    expect(r.status).toBe("mismatch");
    expect(r.problems[0]).toMatch(/^\/exitCode: given twice/);
  });

  it("what cannot be read: not JSON, not a certificate, a format of the future", async () => {
    expect(await verifyCertificate("{")).toMatchObject({
      status: "unreadable",
      problems: [expect.stringMatching(/^not JSON/)],
    });
    expect((await verifyCertificate("[1]")).problems[0]).toMatch(/^not a plantstore-kit conformance certificate/);
    const c = buildCertificate(await input());
    expect((await verifyCertificate(edited(c, (d) => (d.format = 2)))).problems[0]).toMatch(/^format 2/);
    expect((await verifyCertificate(edited(c, (d) => delete d.signature))).problems[0]).toMatch(/^signature: missing/);
  });

  it("inputs given are compared with what the certificate states, each problem naming its field", async () => {
    const c = certificateText(buildCertificate(await input()));
    const r = await verifyCertificate(c, {
      spec: join(KIT_ROOT, "test", "data", "multi-op", "plant-store-multi.yaml"),
      fixtures: join(KIT_ROOT, "conformance"),
      baseline: join(KIT_ROOT, "conformance", "baselines", "prism.json"),
    });
    expect(r.status).toBe("mismatch");
    expect(r.problems.map((p) => p.split(":")[0])).toEqual(["contract.sha256", "fixtures.sha256", "baseline"]);
    expect((await verifyCertificate(c, { spec: DEFAULT_SPEC, fixtures: join(KIT_ROOT, "fixtures") })).status).toBe(
      "intact",
    );
  });

  it("strings are masked before signing, and a key is refused when it is weak or of another kind", async () => {
    const c = buildCertificate({ ...(await input()), redact: createRedactor(["127.0.0.1"]) });
    expect(c.target).toBe("http://[REDACTED]:8080");
    expect((await verifyCertificate(certificateText(c))).status).toBe("intact");
    expect(() => hmacKey("short", "PLANTSTORE_CERTIFICATE_KEY")).toThrow("at least 16 characters");
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ type: "pkcs8", format: "pem" });
    expect(() => signingKeyFromPem(rsa.toString(), "--signing-key k.pem")).toThrow("a rsa key");
    expect(() => signingKeyFromPem("not a key", "--signing-key k.pem")).toThrow("not a PEM private key");
  });
});
