import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KitError } from "../src/errors.js";
import { kitContract, TOKEN } from "../test/helpers.js";
import { startVariant, type VariantServer } from "../test/variant-server.js";
import { runConformance } from "./run.js";

// A private https target: the reference core behind a self-signed certificate made for this test.
const contract = await kitContract();
const dir = mkdtempSync(join(tmpdir(), "plantstore-tls-"));
const keyFile = join(dir, "key.pem");
const certFile = join(dir, "cert.pem");
execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyFile, "-out", certFile, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
let server: VariantServer;

beforeAll(async () => {
  server = await startVariant(contract, () => undefined, [TOKEN], { key: readFileSync(keyFile), cert: readFileSync(certFile) });
});
afterAll(async () => {
  await server.close();
});

describe("an https target with a private certificate", () => {
  it("cannot be judged without trusting it: exit 2 naming --ca and --insecure", async () => {
    const error = await runConformance({ target: server.url, token: TOKEN, contract }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KitError);
    expect((error as KitError).code).toBe("PS_TARGET_UNREACHABLE");
    expect((error as KitError).message).toContain("--ca FILE");
  });

  it("passes with --ca naming its certificate", async () => {
    const { summary } = await runConformance({ target: server.url, token: TOKEN, contract, caFile: certFile });
    expect(summary.exitCode).toBe(0);
  });

  it("passes with --insecure", async () => {
    const { summary } = await runConformance({ target: server.url, token: TOKEN, contract, insecure: true, only: ["valid-*"] });
    expect(summary.exitCode).toBe(0);
  });
});
