// The proxy's library surface; judge-exchange.ts stays internal (its request half is the contract's
// checkRequest, its answer half the harness's checks).
export { startProxy, PROXY_DEFAULTS } from "./start-proxy.js";
export type { ProxyOptions, RunningProxy } from "./start-proxy.js";
export {
  PROXY_REPORT_FORMATS,
  proxyJsonReport,
  proxyJunitReport,
  proxyConsoleReporter,
  proxyReportFiles,
  proxySummaryLines,
  writeProxyReports,
} from "./reports.js";
export type { ProxyConsoleOptions, ProxyReportFormatName } from "./reports.js";
export type {
  ClientCheckId,
  ExchangeRecord,
  NotJudgedKind,
  ProxyEvent,
  ProxyFinding,
  ProxyNoteId,
  ProxyResult,
  ProxySummary,
  Side,
  StopReason,
} from "./types.js";
