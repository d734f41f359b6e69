// The proxy's library surface; judge-exchange.ts stays internal, as its request half is to be
// replaced by the contract's checkRequest.
export { startProxy, PROXY_DEFAULTS } from "./start-proxy.js";
export type { ProxyOptions, RunningProxy } from "./start-proxy.js";
export { proxyJsonReport, proxyJunitReport, proxyConsoleReporter, proxySummaryLines } from "./reports.js";
export type { ProxyConsoleOptions } from "./reports.js";
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
  SideOutcome,
  StopReason,
} from "./types.js";
