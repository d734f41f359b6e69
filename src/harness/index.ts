export { runConformance, runOrThrow } from "./run.js";
export { RUN_DEFAULTS } from "./options.js";
export type { RunOptions, GenerateOptions } from "./options.js";
export type { RunEvent, RunSummary, CaseResult, StepResult, ReportedFinding, Outcome } from "./results.js";
export { CHECKS, CHECK_IDS, judge } from "./checks.js";
export { LEVELS, LEVEL_SUMMARIES, levelsToRun } from "./levels.js";
export type { Level, LevelVerdict } from "./levels.js";
export type { Check, CheckId, Finding, Severity } from "./checks.js";
export { loadFixtures, loadFixture } from "./fixtures/index.js";
export { prepareRequest } from "./prepare-request.js";
export { requestProblems } from "./request-honesty.js";
export type { Fixture, FixtureStep, Expectation, PreparedRequest } from "./case-types.js";
export { loadBaseline, baselineFile, baselineFromResults, writeBaseline } from "./baseline.js";
export type { Baseline, KnownDeviation } from "./baseline.js";
export { savedFixtures, writeSavedFixture } from "./fixtures/index.js";
export type { SavedFixture } from "./fixtures/index.js";
export { consoleReporter, summaryLines } from "./reporters/index.js";
export { jsonReport, jsonErrorReport } from "./reporters/index.js";
export { junitReport, junitErrorReport } from "./reporters/index.js";
export { markdownReport, markdownErrorReport } from "./reporters/index.js";
export { htmlReport, htmlErrorReport } from "./reporters/index.js";
export {
  checkWritable,
  REPORT_FORMATS,
  reportFiles,
  reporters,
  writeReports,
  writeErrorReports,
} from "./reporters/index.js";
export type { ReportFile, ReportFormat, ReportFormatName, Reporter } from "./reporters/index.js";
export { createRedactor, MASK, WHOLE_TOKEN_BELOW } from "./redact.js";
export type { Redactor } from "./redact.js";
export { buildCertificate, writeCertificate } from "./certificate/index.js";
export type { Certificate, CertificateInput } from "./certificate/index.js";
export { canonicalJson } from "./certificate/index.js";
export { describeBaseline, describeContract, describeFixtures } from "./certificate/index.js";
export { hmacKey, publicKeyFromPem, signingKeyFromPem } from "./certificate/index.js";
export type { SigningKey } from "./certificate/index.js";
export { certificateLines, signatureMeaning } from "./certificate/index.js";
export { verifyCertificate } from "./certificate/index.js";
export type { VerifyOptions, VerifyResult } from "./certificate/index.js";
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
