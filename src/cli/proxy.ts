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
import { envList, integerFlag, parseFlags, parseReportFlag } from "./args.js";
import type { Io } from "./io.js";

export const PROXY_HELP = `Usage: plantstore proxy --target URL [options]

A reverse proxy to point an e2e suite or a frontend at instead of the real server. It forwards every
request and answer unchanged (streamed both ways; only Host becomes the upstream's) and judges each
exchange against the contract: the request as the client's (CLIENT violations), the answer as the
server's (SERVER violations). One line per violation on stdout as it happens; on stop, a summary,
the reports, and an exit code to gate CI on.

Options:
  --target URL            the upstream server, http or https, may carry a base path (env PLANTSTORE_TARGET)
  --host HOST             address to listen on (default ${PROXY_DEFAULTS.host})
  --port PORT             port to listen on, 0 for any free one (default ${PROXY_DEFAULTS.port})
  --spec FILE             OpenAPI 3.0/3.1 document (default: the kit's spec/openapi.yaml)
  --report FORMAT=FILE    write a report when stopping: json=FILE or junit=FILE; repeatable
  --max-exchanges N       stop after N exchanges
  --max-time SECONDS      stop after this long
  --max-body BYTES        record bodies up to this size for judging; bigger ones are forwarded whole
                          but not judged (default ${PROXY_DEFAULTS.maxBodyBytes})
  --timeout MS            the longest the upstream may stay silent: 504 before its answer, the
                          connection cut during it (default ${PROXY_DEFAULTS.timeoutMs})
  --fail-on-client        client violations fail the run too (default: reported, not counted)
  --level NAME[,NAME...]  also count the server's breaches of a level beyond the contract; repeatable
                          (levels as in \`plantstore conformance --help\`; here documented-statuses
                          (an undocumented 2xx or 3xx) and http-rfc apply)
  --strict                every level counts (the union of them all)
  --verbose               also print notes and every exchange
  -h, --help              show this help

Tokens are never printed: Authorization credentials and the contract's apiKey values are masked in
every output; curl commands use $PLANTSTORE_TOKEN. Stop with Ctrl-C (SIGINT) or SIGTERM: exchanges in
flight finish first.

Exit codes: 0 no answer broke the contract; 1 one did (or a request did, with --fail-on-client);
2 could not run or nothing to judge (bad flag or spec, no exchange at all, the upstream never reachable).`;

/** \`plantstore proxy\`: a thin shell over startProxy and the reporters; resolves with the exit code. */
export async function proxy(argv: string[], io: Io): Promise<number> {
  const { values } = parseFlags(argv, {
    target: { type: "string" },
    host: { type: "string" },
    port: { type: "string" },
    spec: { type: "string" },
    report: { type: "string", multiple: true },
    "max-exchanges": { type: "string" },
    "max-time": { type: "string" },
    "max-body": { type: "string" },
    timeout: { type: "string" },
    "fail-on-client": { type: "boolean" },
    level: { type: "string", multiple: true },
    strict: { type: "boolean" },
    verbose: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    io.out(PROXY_HELP);
    return 0;
  }
  const target = values.target ?? io.env.PLANTSTORE_TARGET;
  if (target === undefined || target === "")
    throw new KitError("PS_USAGE", "--target URL is required (or set PLANTSTORE_TARGET)");
  const reports = (values.report ?? []).map((r) => parseReportFlag(r));
  // Checked before listening, so a typo cannot cost a whole e2e run's verdict.
  checkWritable(reports.map((r) => r.file));
  const maxTime =
    values["max-time"] === undefined ? undefined : integerFlag("max-time", values["max-time"], 0, 1, 7 * 24 * 3600);
  // Listening for signals before the banner: a signal sent as soon as it shows must stop the proxy gracefully.
  const signalled = io.signal;
  const onConsole = proxyConsoleReporter(io.out, { verbose: values.verbose === true });
  const running = await startProxy(
    {
      target,
      host: values.host ?? PROXY_DEFAULTS.host,
      port: integerFlag("port", values.port, PROXY_DEFAULTS.port, 0, 65535),
      spec: values.spec === undefined ? DEFAULT_SPEC : resolve(values.spec),
      maxExchanges:
        values["max-exchanges"] === undefined
          ? undefined
          : integerFlag("max-exchanges", values["max-exchanges"], 0, 1, 2 ** 31),
      maxTimeMs: maxTime === undefined ? undefined : maxTime * 1000,
      maxBodyBytes: integerFlag("max-body", values["max-body"], PROXY_DEFAULTS.maxBodyBytes, 0, 2 ** 30),
      timeoutMs: integerFlag("timeout", values.timeout, PROXY_DEFAULTS.timeoutMs, 100, 3_600_000),
      failOnClient: values["fail-on-client"] === true,
      levels: (values.level ?? []).flatMap((v) => envList(v)),
      strict: values.strict === true,
    },
    (event: ProxyEvent) => onConsole(event),
  );
  const stopped: ProxyResult = await Promise.race([
    running.done,
    signalled.then((signal) => running.stop(signal as StopReason)),
  ]);
  const { summary, exchanges } = stopped;
  for (const line of writeProxyReports(reports, summary, exchanges)) io.out(line);
  return summary.exitCode;
}
