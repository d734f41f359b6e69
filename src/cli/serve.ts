import { DEFAULT_HTTP_OPTIONS, DEFAULT_MAX_PLANTS, DEV_TOKEN, startReferenceServer } from "../server/index.js";
import { shellQuote } from "../shell.js";
import { parseFlags } from "./args.js";
import { helpText, type CommandFlags } from "./flags.js";
import { onShutdown, type Io } from "./io.js";
import { readyFile } from "./ready.js";

const server = "ReferenceServerConfig";

/** `plantstore serve`: its flags, its --help and its rows of docs/flags.md. */
export const SERVE = {
  command: "serve",
  usage: "serve [options]",
  description: "Starts the in-memory reference implementation of the Plant Store on loopback.",
  flags: {
    host: {
      type: "string",
      value: "HOST",
      help: "address to bind",
      env: "PLANTSTORE_HOST",
      default: DEFAULT_HTTP_OPTIONS.host,
      option: `${server}.host`,
    },
    port: {
      type: "integer",
      value: "PORT",
      help: "port to bind, 0 for any free port",
      min: 0,
      max: 65535,
      env: "PLANTSTORE_PORT",
      default: DEFAULT_HTTP_OPTIONS.port,
      option: `${server}.port`,
    },
    token: {
      type: "string",
      multiple: true,
      value: "TOKEN",
      help: "a bearer token to accept",
      more: `Without one, the development token "${DEV_TOKEN}" is accepted.`,
      env: "PLANTSTORE_TOKENS",
      option: `${server}.tokens`,
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
    "max-plants": {
      type: "integer",
      value: "N",
      help: "how many plants the store holds; beyond it creates get a 400 Error",
      min: 0,
      max: 2 ** 32,
      default: DEFAULT_MAX_PLANTS,
      option: `${server}.maxPlants`,
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
      option: `${server}.admin`,
    },
    "errors-on-demand": {
      type: "boolean",
      help: 'answer "Prefer: code=400" with the documented 400 Error (as Prism does)',
      option: `${server}.errorsOnDemand`,
    },
    data: {
      type: "string",
      value: "FILE",
      help: "start with the plants of a JSON array of NewPlant objects",
      option: `${server}.dataFile`,
    },
    quiet: { type: "boolean", help: "no per-request log lines", option: null },
    "ready-file": {
      type: "string",
      value: "FILE",
      help: "once listening, write the URL to FILE (atomically), for a script to wait on; removed on stop",
      option: null,
    },
    help: { type: "boolean", short: "h", help: "show this help", option: null },
  },
  footer: "Tokens you pass are never printed. Stop with Ctrl-C (SIGINT) or SIGTERM: requests in flight finish first.",
} as const satisfies CommandFlags;

/** \`plantstore serve\`: resolves when the server has stopped after a signal. */
export async function serve(argv: string[], io: Io): Promise<number> {
  const { values } = parseFlags(argv, SERVE.flags, { env: io.env });
  if (values.help) {
    io.out(helpText(SERVE));
    return 0;
  }
  const tokens = values.token ?? [];
  const ready = readyFile(values["ready-file"]);
  // Listening for signals before the server: one sent during start-up stops it once it listens.
  const signalled = io.signal;
  const server = await startReferenceServer({
    host: values.host,
    port: values.port,
    tokens,
    // An empty PLANTSTORE_CORS_ORIGINS is no choice: the default stands.
    corsOrigins: values["cors-origin"].length > 0 ? values["cors-origin"] : [...SERVE.flags["cors-origin"].default],
    corsHeaders: values["cors-headers"],
    maxPlants: values["max-plants"],
    maxBodyBytes: values["max-body"],
    delayMs: values.delay,
    admin: values.admin,
    errorsOnDemand: values["errors-on-demand"],
    dataFile: values.data,
    log: values.quiet ? undefined : io.out,
  });
  const bearer = tokens.length === 0 ? DEV_TOKEN : "$PLANTSTORE_TOKEN";
  io.out(`Plant Store reference server listening on ${server.url}`);
  if (tokens.length === 0) io.out(`Development token: ${DEV_TOKEN} (pass --token to choose your own)`);
  else
    io.out(
      `Accepting the ${tokens.length} token(s) you configured; set PLANTSTORE_TOKEN to one of them for the command below.`,
    );
  if (values.data !== undefined) io.out(`Started with ${server.store.size} plants from ${values.data}`);
  io.out("Try it:");
  io.out(`  ${createPlantCurl(server.url, bearer)}`);
  if (values.admin) io.out(`Admin surface on: GET or DELETE ${server.url}/__admin/plants (same token)`);
  ready?.ready(server.url);
  await onShutdown(signalled, io, server.url, () => server.close());
  ready?.remove();
  return 0;
}

/** A curl command that creates a plant; the token is printed only if it is the dev token or a variable. */
export function createPlantCurl(url: string, bearer: string): string {
  const auth = bearer.startsWith("$")
    ? `"Authorization: Bearer ${bearer}"`
    : shellQuote(`Authorization: Bearer ${bearer}`);
  const body = JSON.stringify({ id: Date.now(), name: "Boston fern", tag: "fern" });
  return `curl -sS -X POST ${url}/plants -H ${auth} -H 'Content-Type: application/json' -d ${shellQuote(body)}`;
}
