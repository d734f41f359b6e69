import { generateKeyPairSync } from "node:crypto";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_SPEC, KIT_ROOT } from "../../paths.js";
import { kitContract } from "../../../test/helpers.js";
import { buildCertificate, certificateText, type Certificate, type CertificateInput } from "./certificate.js";
import { describeContract, describeFixtures } from "./inputs.js";
import { hmacKey, keyId, signingKeyFromPem, type SigningKey } from "./keys.js";
import { certificateLines } from "./lines.js";
import { signCertificate } from "./signature.js";
import { verifyCertificate } from "./verify.js";
import type { RunSummary } from "../results.js";
import { createRedactor } from "../redact.js";

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
