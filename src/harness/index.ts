export { runConformance } from "./run.js";
export { RUN_DEFAULTS } from "./options.js";
export type { RunOptions, GenerateOptions } from "./options.js";
export type { RunEvent, RunSummary, CaseResult, StepResult, ReportedFinding, Outcome } from "./results.js";
export { CHECKS, CHECK_IDS, judge } from "./checks.js";
export { LEVELS, LEVEL_SUMMARIES, levelsToRun } from "./levels.js";
export type { Level, LevelVerdict } from "./levels.js";
export type { Check, CheckId, Finding, Severity } from "./checks.js";
export { loadFixtures, loadFixture, prepareRequest, requestProblems } from "./fixtures.js";
export type { Fixture, FixtureStep, Expectation, PreparedRequest } from "./fixtures.js";
export { loadBaseline, baselineFile, baselineFromResults, writeBaseline } from "./baseline.js";
export type { Baseline, KnownDeviation } from "./baseline.js";
export { savedFixtures, writeSavedFixture } from "./saved-fixtures.js";
export type { SavedFixture } from "./saved-fixtures.js";
export { consoleReporter, summaryLines } from "./reporters/console.js";
export { jsonReport, jsonErrorReport } from "./reporters/json.js";
export { junitReport, junitErrorReport } from "./reporters/junit.js";
export { markdownReport, markdownErrorReport } from "./reporters/markdown.js";
export { htmlReport, htmlErrorReport } from "./reporters/html.js";
export {
  checkWritable,
  REPORT_FORMATS,
  reportFiles,
  reporters,
  writeReports,
  writeErrorReports,
} from "./reporters/files.js";
export type { ReportFile, ReportFormat, ReportFormatName, Reporter } from "./reporters/files.js";
export { createRedactor, MASK, WHOLE_TOKEN_BELOW } from "./redact.js";
export type { Redactor } from "./redact.js";
export { buildCertificate, writeCertificate } from "./certificate.js";
export type { Certificate, CertificateInput } from "./certificate.js";
export { canonicalJson } from "./canonical-json.js";
export { describeBaseline, describeContract, describeFixtures } from "./certificate-inputs.js";
export { hmacKey, publicKeyFromPem, signingKeyFromPem } from "./certificate-keys.js";
export type { SigningKey } from "./certificate-keys.js";
export { certificateLines, signatureMeaning } from "./certificate-lines.js";
export { verifyCertificate } from "./certificate-verify.js";
export type { VerifyOptions, VerifyResult } from "./certificate-verify.js";
export {
  CREDENTIAL_KINDS,
  NEAR_MISS_KINDS,
  checkRunCredentials,
  chooseAlternative,
  credentialOf,
  credentialsFor,
  credentialVariable,
  curlSecrets,
  declaredSchemes,
  nearMiss,
  secretsToMask,
} from "./credentials.js";
export type { AppliedCredentials, CredentialKind, CurlSecret, NearMissKind, RunCredentials } from "./credentials.js";
