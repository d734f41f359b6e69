// The package's library surface (`import { ... } from "plantstore-kit"`), for projects that drive the
// kit from code rather than through the CLI. Each export is named here: everything else is internal
// and free to move (src/index.test.ts lists the runtime names, so a change to this surface is a diff).
// Browser and service-worker code imports "plantstore-kit/handler", which carries no Node module.

// The contract: load any OpenAPI 3.0/3.1 document once; every part of the kit asks it.
export { loadContract, checkRequest, checkResponse, resourceModel } from "./contract/index.js";
export type {
  Contract,
  ContractNote,
  CompiledOperation,
  CheckedRequest,
  CheckedResponse,
  RequestMessage,
  ResponseMessage,
  Resource,
  ResourceModel,
  Role,
} from "./contract/index.js";

// The mock half: the reference server over HTTP, its fetch handler, and the real Prism.
export { startReferenceServer, createPlantStoreHandler, DEV_TOKEN } from "./server/index.js";
export { startMockServer, createMockHandler } from "./server/index.js";
export type {
  ReferenceServer,
  ReferenceServerConfig,
  PlantStoreHandler,
  PlantStoreHandlerOptions,
  MockServer,
  MockServerConfig,
  MockHandler,
  MockHandlerOptions,
  MockOptions,
} from "./server/index.js";
export { startPrism } from "./mock/prism.js";
export type { PrismOptions, RunningPrism } from "./mock/prism.js";

// The judging half: a run against any URL, its checks and levels, its reports, baselines, certificates.
export { runConformance, RUN_DEFAULTS, CHECKS, LEVELS, loadBaseline, verifyCertificate } from "./harness/index.js";
export { consoleReporter, jsonReport, junitReport, markdownReport, htmlReport } from "./harness/index.js";
export type {
  RunOptions,
  GenerateOptions,
  RunEvent,
  RunSummary,
  CaseResult,
  StepResult,
  ReportedFinding,
  Outcome,
  Check,
  CheckId,
  Level,
  Baseline,
  Certificate,
  VerifyOptions,
  VerifyResult,
} from "./harness/index.js";

// The proxy: judges real traffic between a client and a server.
export { startProxy, PROXY_DEFAULTS } from "./proxy/index.js";
export type { ProxyOptions, RunningProxy, ProxyEvent, ProxySummary } from "./proxy/index.js";

// Errors every entry may throw, and the kit's own contract and fixtures.
export { KitError, KIT_ERRORS } from "./errors.js";
export type { KitErrorCode } from "./errors.js";
export type { Plant, NewPlant, ErrorBody } from "./types.js";
export { DEFAULT_SPEC, DEFAULT_FIXTURES } from "./paths.js";
