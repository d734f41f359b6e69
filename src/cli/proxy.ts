import { resolve } from "node:path";
import { checkWritable } from "../harness/index.js";
import {
  PROXY_DEFAULTS,
  proxyConsoleReporter,
  writeProxyReports,
  startProxy,
  type ProxyEvent,
  type ProxyResult,
  type StopReason,
} from "../proxy/index.js";
import { KitError } from "../errors.js";
import { DEFAULT_SPEC } from "../paths.js";
import { commandValues, parseReportFlag } from "./args.js";
import { READY_FILE_FLAG, type CommandFlags } from "./flags.js";
import type { Io } from "./io.js";
import { readyFile } from "./ready.js";

const options = "ProxyOptions";

/** \`plantstore proxy\`: its flags, its --help and its rows of docs/flags.md. */
export const PROXY = {
  command: "proxy",
  usage: "proxy --target URL [options]",
  description: `A reverse proxy to point an e2e suite or a frontend at instead of the real server. It forwards every
request and answer unchanged (streamed both ways; only Host becomes the upstream's) and judges each
exchange against the contract: the request as the client's (CLIENT violations), the answer as the
server's (SERVER violations). One line per violation on stdout as it happens; on stop, a summary,
the reports, and an exit code to gate CI on.`,
  flags: {
    target: {
      type: "string",
      value: "URL",
      help: "the upstream server, http or https, may carry a base path",
      env: "PLANTSTORE_TARGET",
      option: `${options}.target`,
    },
    host: {
      type: "string",
      value: "HOST",
      help: "address to listen on",
      default: PROXY_DEFAULTS.host,
      option: `${options}.host`,
    },
    port: {
      type: "integer",
      value: "PORT",
      help: "port to listen on, 0 for any free one",
      min: 0,
      max: 65535,
      default: PROXY_DEFAULTS.port,
      option: `${options}.port`,
    },
    spec: {
      type: "string",
      value: "FILE",
      help: "OpenAPI 3.0/3.1 document",
      defaultText: "the kit's spec/openapi.yaml",
      option: `${options}.spec`,
    },
    report: {
      type: "string",
      multiple: true,
      value: "FORMAT=FILE",
      help: "write a report when stopping: json=FILE or junit=FILE",
      option: null,
    },
    "max-exchanges": {
      type: "integer",
      value: "N",
      help: "stop after N exchanges",
      min: 1,
      max: 2 ** 31,
      option: `${options}.maxExchanges`,
    },
    "max-time": {
      type: "integer",
      value: "SECONDS",
      help: "stop after this many seconds",
      min: 1,
      max: 7 * 24 * 3600,
      option: `${options}.maxTimeMs`,
    },
    "max-body": {
      type: "integer",
      value: "BYTES",
      help: "record bodies up to this size for judging; bigger ones are forwarded whole but not judged",
      min: 0,
      max: 2 ** 30,
      default: PROXY_DEFAULTS.maxBodyBytes,
      option: `${options}.maxBodyBytes`,
    },
    timeout: {
      type: "integer",
      value: "MS",
      help: "the longest the upstream may stay silent: 504 before its answer, the connection cut during it",
      min: 100,
      max: 3_600_000,
      default: PROXY_DEFAULTS.timeoutMs,
      option: `${options}.timeoutMs`,
    },
    "fail-on-client": {
      type: "boolean",
      help: "client violations fail the run too (otherwise they are reported, not counted)",
      option: `${options}.failOnClient`,
    },
    level: {
      type: "list",
      multiple: true,
      value: "NAME[,NAME...]",
      help: "also count the server's breaches of a level beyond the contract",
      more: "Levels as in `plantstore conformance --help`; here documented-statuses (an undocumented 2xx or 3xx) and http-rfc apply.",
      option: `${options}.levels`,
    },
    strict: { type: "boolean", help: "every level counts (the union of them all)", option: `${options}.strict` },
    verbose: { type: "boolean", help: "also print notes and every exchange", option: "ProxyConsoleOptions.verbose" },
    "ready-file": READY_FILE_FLAG,
    help: { type: "boolean", short: "h", help: "show this help", option: null },
  },
  footer: `Tokens are never printed: Authorization credentials and the contract's apiKey values are masked in
every output; curl commands use $PLANTSTORE_TOKEN. Stop with Ctrl-C (SIGINT) or SIGTERM: exchanges in
flight finish first, then the reports are written and the exit code is the verdict's.

Exit codes: 0 no answer broke the contract; 1 one did (or a request did, with --fail-on-client);
2 could not run or nothing to judge (bad flag or spec, no exchange at all, the upstream never reachable).`,
} as const satisfies CommandFlags;

/** \`plantstore proxy\`: a thin shell over startProxy and the reporters; resolves with the exit code. */
export async function proxy(argv: string[], io: Io): Promise<number> {
  const values = commandValues(argv, PROXY, io);
  if (values === undefined) return 0;
  const target = values.target;
  if (target === undefined || target === "")
    throw new KitError("PS_USAGE", "--target URL is required (or set PLANTSTORE_TARGET)");
  const reports = (values.report ?? []).map((r) => parseReportFlag(r));
  // Checked before listening, so a typo cannot cost a whole e2e run's verdict.
  checkWritable(reports.map((r) => r.file));
  // Listening for signals before the banner: a signal sent as soon as it shows must stop the proxy gracefully.
  const signalled = io.signal;
  const ready = readyFile(values["ready-file"]);
  const onConsole = proxyConsoleReporter(io.out, { verbose: values.verbose });
  const running = await startProxy(
    {
      target,
      host: values.host,
      port: values.port,
      spec: values.spec === undefined ? DEFAULT_SPEC : resolve(values.spec),
      maxExchanges: values["max-exchanges"],
      maxTimeMs: values["max-time"] === undefined ? undefined : values["max-time"] * 1000,
      maxBodyBytes: values["max-body"],
      timeoutMs: values.timeout,
      failOnClient: values["fail-on-client"],
      levels: values.level ?? [],
      strict: values.strict,
    },
    (event: ProxyEvent) => onConsole(event),
  );
  ready?.ready(running.url);
  const stopped: ProxyResult = await Promise.race([
    running.done,
    signalled.then((signal) => running.stop(signal as StopReason)),
  ]);
  const { summary, exchanges } = stopped;
  for (const line of writeProxyReports(reports, summary, exchanges)) io.out(line);
  ready?.remove();
  return summary.exitCode;
}
