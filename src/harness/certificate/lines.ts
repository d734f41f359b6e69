// What a certificate says, for a person: its statements in a few lines, and what its tamper evidence proves.
import type { Certificate } from "./certificate.js";
import type { CertificateSignature } from "./signature.js";

/** What a certificate states, in a few lines for a person (robust to a certificate of any shape). */
export function certificateLines(certificate: Certificate): string[] {
  const at = (...keys: (string | number)[]): unknown =>
    keys.reduce<unknown>(
      (v, k) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined),
      certificate,
    );
  const s = (...keys: (string | number)[]): string => {
    const v = at(...keys);
    return typeof v === "string" || typeof v === "number" ? String(v) : (JSON.stringify(v) ?? "?");
  };
  const ratio = (what: string): string => `${s("coverage", what, "exercised")} of ${s("coverage", what, "total")}`;
  const levelList = at("levels");
  const levels = Array.isArray(levelList)
    ? levelList
        .map((_, i) => {
          const failing = at("levels", i, "failedCases");
          const cases = typeof failing === "number" && failing > 0 ? ` (${failing} failing cases)` : "";
          const shown = at("levels", i, "counted") === false ? " (not counted)" : "";
          return `${s("levels", i, "level")} ${s("levels", i, "verdict").toUpperCase()}${cases}${shown}`;
        })
        .join(", ")
    : s("levels");
  const fixtures =
    at("fixtures") === null
      ? "none (generated cases only)"
      : `${s("fixtures", "path")} (${s("fixtures", "count")} files, sha256 ${s("fixtures", "sha256")})`;
  const baseline =
    at("baseline") === null
      ? "none"
      : `${s("baseline", "path")} (${s("baseline", "count")} deviations, sha256 ${s("baseline", "sha256")})`;
  const list = (flag: string, v: unknown): string =>
    Array.isArray(v) && v.length > 0 ? `; --${flag} ${v.map(String).join(",")}` : "";
  const generated = at("generate") === null ? "" : `; generated: ${s("generate")} per operation and polarity`;
  const minimum = at("minCoverage") === null ? "" : ` (--min-coverage ${s("minCoverage")})`;
  const exit = at("exitCode");
  const lines = [
    `kit: ${s("kit", "name")} ${s("kit", "version")} on Node ${s("node")}`,
    `contract: ${s("contract", "path")} (${s("contract", "title")} ${s("contract", "version")}, OpenAPI ` +
      `${s("contract", "openapi")}), sha256 ${s("contract", "sha256")}`,
    `fixtures: ${fixtures}${generated}${list("only", at("selection", "only"))}${list("skip", at("selection", "skip"))}`,
    `baseline: ${baseline}`,
    `run: ${s("startedAt")} against ${s("target")}, seed ${s("seed")}, ${s("durationMs")} ms`,
    `cases: ${s("cases", "total")}: ${s("cases", "passed")} passed, ${s("cases", "failed")} failed, ` +
      `${s("cases", "known")} known deviations, ${s("cases", "errors")} errors`,
    `levels: ${levels}`,
    `coverage: ${ratio("operations")} operations, ${ratio("statuses")} documented statuses, ` +
      `${ratio("parameters")} parameters${minimum}`,
  ];
  if (at("runError") !== null) lines.push(`run error: ${s("runError")}`);
  const verdict = exit === 0 ? "PASS" : exit === 1 ? "FAIL" : "COULD NOT JUDGE";
  lines.push(`verdict of the run: ${verdict} (exit ${s("exitCode")})`);
  return lines;
}

/** What the tamper evidence of a certificate proves, in one line. */
export function signatureMeaning(signature: CertificateSignature): string {
  if (signature.alg === "sha256") {
    return "sha256 digest only: shows the certificate was not changed by accident; anyone can recompute a digest, so it does not show who made it";
  }
  if (signature.alg === "hmac-sha256") {
    return `HMAC-SHA256 with key ${signature.keyId ?? "?"}: made by a holder of the shared key, and not changed since`;
  }
  return `Ed25519 signature by key ${signature.keyId ?? "?"}: made by the holder of the private key, and not changed since`;
}
