import { existsSync } from "node:fs";
import {
  DEFAULT_HTTP_OPTIONS,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ITEMS,
  DEV_TOKEN,
  startMockServer,
  startReferenceServer,
  type MockServerConfig,
} from "../server/index.js";
import type { RequestLog } from "../server/request-line.js";
import { shellQuote } from "../shell.js";
import { count } from "../words.js";
import { commandValues } from "./args.js";
import { bindFlags, READY_FILE_FLAG, type CommandFlags, type FlagValues } from "./flags.js";
import { onShutdown, type Io } from "./io.js";
import { logBatch } from "./log-batch.js";
import { readyFile } from "./ready.js";

const server = "MockServerConfig";

/** `plantstore serve`: its flags, its --help and its rows of docs/flags.md. */
export const SERVE = {
  command: "serve",
  usage: "serve [options]",
  description:
    "Starts the in-memory reference implementation of the Plant Store on loopback; with --spec, a stateful mock of any OpenAPI document.",
  flags: {
    spec: {
      type: "string",
      value: "FILE",
      help: "serve this OpenAPI 3.0/3.1 document with the stateful mock engine instead of the Plant Store",
      more: "Creates, reads, replaces, patches, deletes and lists act on an in-memory store, as the document's resources say; other operations answer their examples. The start-up report says how each operation is served.",
      option: null,
    },
    ...bindFlags(DEFAULT_HTTP_OPTIONS, "PLANTSTORE_PORT", server),
    token: {
      type: "string",
      multiple: true,
      value: "TOKEN",
      help: "a bearer token to accept",
      more: `Without one, the development token "${DEV_TOKEN}" is accepted.`,
      env: "PLANTSTORE_TOKEN",
      formerEnv: "PLANTSTORE_TOKENS",
      option: `${server}.tokens`,
    },
    basic: {
      type: "string",
      multiple: true,
      value: "USER:PASSWORD",
      help: "an HTTP basic user and password to accept (a contract with basic auth)",
      env: "PLANTSTORE_BASIC",
      more: `Without one, the user "plantstore" with the development token as its password is accepted.`,
      option: `${server}.basic`,
    },
    "cors-origin": {
      type: "string",
      multiple: true,
      value: "ORIGIN",
      help: "a browser origin allowed to call the server",
      env: "PLANTSTORE_CORS_ORIGINS",
      default: ["*"],
      defaultText: "*, any origin",
      option: `${server}.corsOrigins`,
    },
    "cors-headers": {
      type: "list",
      value: "LIST",
      help: "request headers a preflight may allow besides Authorization, Content-Type and Prefer",
      env: "PLANTSTORE_CORS_HEADERS",
      defaultText: "any the browser asks for",
      option: `${server}.corsHeaders`,
    },
    "max-items": {
      type: "integer",
      aliases: ["max-plants"],
      value: "N",
      help: "how many items (the Plant Store's plants) the store holds; beyond it creates get a 400 Error",
      min: 0,
      max: 2 ** 32,
      default: DEFAULT_MAX_ITEMS,
      option: `${server}.maxItems`,
    },
    "max-body": {
      type: "integer",
      value: "BYTES",
      help: "largest request body accepted, larger ones get 413",
      min: 0,
      max: 2 ** 31,
      default: DEFAULT_HTTP_OPTIONS.maxBodyBytes,
      option: `${server}.maxBodyBytes`,
    },
    "max-depth": {
      type: "integer",
      value: "N",
      help: "deepest nesting of arrays and objects in a JSON body, deeper ones get 400 unparsed",
      min: 1,
      max: 100_000,
      default: DEFAULT_MAX_DEPTH,
      option: `${server}.maxDepth`,
    },
    delay: {
      type: "integer",
      value: "MS",
      help: "wait this long before every answer",
      min: 0,
      max: 600_000,
      default: DEFAULT_HTTP_OPTIONS.delayMs,
      option: `${server}.delayMs`,
    },
    admin: {
      type: "boolean",
      help: "serve GET/DELETE /__admin/plants (list, reset the store); needs the token too",
      more: "With --spec: GET/DELETE /__admin/store, every collection's items.",
      option: `${server}.admin`,
    },
    "errors-on-demand": {
      type: "boolean",
      help: 'answer "Prefer: code=400" with the documented 400 Error (as Prism does)',
      more: "With --spec: any documented status (Prefer: code=NNN) and named example (Prefer: example=NAME).",
      option: `${server}.errorsOnDemand`,
    },
    data: {
      type: "string",
      value: "FILE",
      help: "start with the plants of a JSON array of NewPlant objects",
      more: 'With --spec: a JSON object of collection paths, each an array of create bodies ({"/plants": [{...}]}).',
      option: `${server}.dataFile`,
    },
    save: {
      type: "string",
      value: "FILE",
      help: "keep the store in FILE and each change in FILE.journal before its answer; a restart starts from them",
      option: null,
    },
    "save-fsync": {
      type: "boolean",
      help: "with --save: flush each change to the disk before its answer (survives a power loss; slower)",
      option: null,
    },
    quiet: { type: "boolean", help: "no per-request log lines", option: null },
    "ready-file": READY_FILE_FLAG,
    help: { type: "boolean", short: "h", help: "show this help", option: null },
  },
  footer: "Tokens you pass are never printed. Stop with Ctrl-C (SIGINT) or SIGTERM: requests in flight finish first.",
} as const satisfies CommandFlags;

/** \`plantstore serve\`: resolves when the server has stopped after a signal. */
export async function serve(argv: string[], io: Io): Promise<number> {
  const values = commandValues(argv, SERVE, io);
  if (values === undefined) return 0;
  const tokens = values.token ?? [];
  if (values.spec !== undefined) return serveSpec(values.spec, values, io);
  const ready = readyFile(values["ready-file"]);
  const restoring = values.save !== undefined && existsSync(values.save);
  // Listening for signals before the server: one sent during start-up stops it once it listens.
  const signalled = io.signal;
  const logged = requestLog(io, values.quiet);
  io = logged.io;
  const server = await startReferenceServer(serverConfig(values, logged.log));
  const bearer = tokens.length === 0 ? DEV_TOKEN : "$PLANTSTORE_TOKEN";
  io.out(`Plant Store reference server listening on ${server.url}`);
  if (tokens.length === 0) io.out(`Development token: ${DEV_TOKEN} (pass --token to choose your own)`);
  else if (tokens.length === 1 && io.env.PLANTSTORE_TOKEN === tokens[0])
    io.out("Accepting the token in PLANTSTORE_TOKEN, which the command below sends.");
  else
    io.out(
      `Accepting the ${tokens.length} token(s) you configured; set PLANTSTORE_TOKEN to one of them for the command below.`,
    );
  if (values.data !== undefined || restoring)
    io.out(`Started with ${count(server.store.size, "plant")} from ${restoring ? values.save : values.data}`);
  if (values.save !== undefined) io.out(`Saving the store to ${values.save} after every change`);
  io.out("Try it:");
  io.out(`  ${createPlantCurl(server.url, bearer)}`);
  if (values.admin) io.out(`Admin surface on: GET or DELETE ${server.url}/__admin/plants (same token)`);
  ready?.ready(server.url);
  await onShutdown(signalled, io, server.url, () => server.close());
  logged.close();
  ready?.remove();
  return 0;
}

type ServeValues = FlagValues<typeof SERVE.flags>;

/** The mock server's options from serve's flags, the same for the Plant Store and for --spec. */
function serverConfig(values: ServeValues, log: RequestLog | undefined): Omit<MockServerConfig, "contract"> {
  return {
    host: values.host,
    port: values.port,
    tokens: values.token ?? [],
    ...(values.basic === undefined || values.basic.length === 0 ? {} : { basic: values.basic }),
    // An empty PLANTSTORE_CORS_ORIGINS is no choice: the default stands.
    corsOrigins: values["cors-origin"].length > 0 ? values["cors-origin"] : [...SERVE.flags["cors-origin"].default],
    corsHeaders: values["cors-headers"],
    maxItems: values["max-items"],
    maxBodyBytes: values["max-body"],
    maxDepth: values["max-depth"],
    delayMs: values.delay,
    admin: values.admin,
    errorsOnDemand: values["errors-on-demand"],
    dataFile: values.data,
    saveFile: values.save,
    saveFsync: values["save-fsync"],
    log,
  };
}

/** `plantstore serve --spec FILE`: the mock engine on any document, with its start-up report. */
async function serveSpec(spec: string, values: ServeValues, io: Io): Promise<number> {
  const { loadContract } = await import("../contract/index.js");
  const contract = await loadContract(spec);
  const ready = readyFile(values["ready-file"]);
  const signalled = io.signal;
  const logged = requestLog(io, values.quiet);
  io = logged.io;
  const tokens = values.token ?? [];
  const restoring = values.save !== undefined && existsSync(values.save);
  const server = await startMockServer({ ...serverConfig(values, logged.log), contract });
  io.out(`Mock of ${contract.title} ${contract.version} (${spec}) listening on ${server.url}`);
  const basic = values.basic ?? [];
  const devToken = `token or API key ${DEV_TOKEN}`;
  const devBasic = `basic plantstore:${DEV_TOKEN}`;
  if (tokens.length === 0 && basic.length === 0)
    io.out(`Development credentials: ${devToken}, ${devBasic} (pass --token and --basic to choose your own)`);
  else if (tokens.length === 0) io.out(`Development credentials: ${devToken} (pass --token to choose your own)`);
  else io.out(`Accepting the ${tokens.length} token(s) you configured as bearer tokens and API keys.`);
  // Never the pairs themselves: they hold passwords.
  if (basic.length > 0) io.out(`Accepting the ${basic.length} basic user:password pair(s) you configured.`);
  else if (tokens.length > 0) io.out(`Development credentials: ${devBasic} (pass --basic to choose your own)`);
  io.out("How each operation is served:");
  const width = Math.max(
    ...server.engine.served.map((s) => s.operation.method.length + s.operation.pathTemplate.length + 1),
  );
  for (const { operation, served } of server.engine.served)
    io.out(`  ${`${operation.method.toUpperCase()} ${operation.pathTemplate}`.padEnd(width)}  ${served}`);
  for (const r of server.engine.model.resources) for (const note of r.notes) io.out(`Note: ${note}`);
  if (server.engine.store.size > 0)
    io.out(`Started with ${count(server.engine.store.size, "item")} from ${restoring ? values.save : values.data}`);
  if (values.save !== undefined) io.out(`Saving the store to ${values.save} after every change`);
  if (values.admin) io.out(`Admin surface on: GET or DELETE ${server.url}/__admin/store (same token)`);
  ready?.ready(server.url);
  await onShutdown(signalled, io, server.url, () => server.close());
  logged.close();
  ready?.remove();
  return 0;
}

/**
 * The per-request log of serve, unless --quiet: lines written in batches (log-batch.ts), and an Io
 * whose every other line writes the batch first, so the output keeps the order of events.
 */
function requestLog(io: Io, quiet: boolean): { io: Io; log: RequestLog | undefined; close(): void } {
  if (quiet) return { io, log: undefined, close: () => undefined };
  const batch = logBatch(io.out, io.outBytes);
  const out = (line: string): void => {
    batch.flush();
    io.out(line);
  };
  // Not a spread: io.signal is a getter, read here once as serve has already read it.
  return {
    io: { out, err: io.err, env: io.env, signal: io.signal, isTty: io.isTty },
    log: batch.line,
    close: batch.close,
  };
}

/** A curl command that creates a plant; the token is printed only if it is the dev token or a variable. */
export function createPlantCurl(url: string, bearer: string): string {
  const auth = bearer.startsWith("$")
    ? `"Authorization: Bearer ${bearer}"`
    : shellQuote(`Authorization: Bearer ${bearer}`);
  const body = JSON.stringify({ id: Date.now(), name: "Boston fern", tag: "fern" });
  return `curl -sS -X POST ${url}/plants -H ${auth} -H 'Content-Type: application/json' -d ${shellQuote(body)}`;
}
