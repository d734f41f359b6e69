import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KitError } from "../src/errors.js";
import { kitContract, TOKEN } from "../test/helpers.js";
import { startVariant, type VariantServer } from "../test/variant-server.js";
import { runConformance, runOrThrow } from "../src/harness/run.js";

// A private https target: the reference core behind a self-signed certificate made for this test
// (in JavaScript, so the tests need no openssl).
const contract = await kitContract();
let dir: string | undefined;
let certFile: string;
let server: VariantServer;

beforeAll(async () => {
  const now = new Date();
  const pems = await generate([{ name: "commonName", value: "127.0.0.1" }], {
    keySize: 2048,
    algorithm: "sha256",
    notBeforeDate: now,
    notAfterDate: new Date(now.getTime() + 24 * 60 * 60 * 1000),
    extensions: [
      { name: "basicConstraints", cA: false, critical: true },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      // The URL names an IP, so only an IP entry lets --ca verify the certificate.
      { name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] },
    ],
  });
  dir = mkdtempSync(join(tmpdir(), "plantstore-tls-"));
  certFile = join(dir, "cert.pem");
  writeFileSync(certFile, pems.cert);
  const tls = { key: Buffer.from(pems.private), cert: Buffer.from(pems.cert) };
  server = await startVariant(contract, () => undefined, [TOKEN], tls);
});
afterAll(async () => {
  // beforeAll may have failed before the server or the folder existed.
  try {
    await server?.close();
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
});

describe("an https target with a private certificate", () => {
  it("cannot be judged without trusting it: exit 2 naming --ca and --insecure", async () => {
    const error = await runOrThrow({ target: server.url, token: TOKEN, contract }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KitError);
    expect((error as KitError).code).toBe("PS_TARGET_UNREACHABLE");
    expect((error as KitError).message).toContain("--ca-file FILE");
  });

  it("passes with --ca naming its certificate", async () => {
    const { summary } = await runConformance({ target: server.url, token: TOKEN, contract, caFile: certFile });
    expect(summary.exitCode).toBe(0);
  });

  it("passes with --insecure", async () => {
    const { summary } = await runConformance({
      target: server.url,
      token: TOKEN,
      contract,
      insecure: true,
      only: ["valid-*"],
    });
    expect(summary.exitCode).toBe(0);
  });
});

describe("https to a port that speaks plain HTTP", () => {
  it.each([[false], [true]])(
    "--insecure %s: one line saying the port is not TLS, no certificate advice",
    async (insecure) => {
      const plain = await startVariant(contract, () => undefined, [TOKEN]);
      try {
        const target = plain.url.replace(/^http:/, "https:");
        const error = await runOrThrow({ target, token: TOKEN, contract, insecure }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(KitError);
        const message = (error as KitError).message;
        expect(message).not.toMatch(/[\r\n]/);
        expect(message).toContain("the target does not speak TLS on this port; is it plain HTTP (http://)?");
        expect(message).not.toContain("--ca");
      } finally {
        await plain.close();
      }
    },
  );
});
