import { DEFAULT_HTTP_OPTIONS, DEFAULT_MAX_PLANTS, DEV_TOKEN, startReferenceServer } from "../server/index.js";
import { shellQuote } from "../shell.js";
import { envList, integerFlag, parseFlags } from "./args.js";
import { onShutdown, type Io } from "./io.js";

export const SERVE_HELP = `Usage: plantstore serve [options]

Starts the in-memory reference implementation of the Plant Store on loopback.

Options:
  --host HOST          address to bind (env PLANTSTORE_HOST; default 127.0.0.1)
  --port PORT          port to bind, 0 for any free port (env PLANTSTORE_PORT; default 4010)
  --token TOKEN        a bearer token to accept; repeat for several (env PLANTSTORE_TOKENS,
                       comma-separated). Without one, the development token "${DEV_TOKEN}" is accepted.
  --cors-origin ORIGIN a browser origin allowed to call the server; repeat for several
                       (env PLANTSTORE_CORS_ORIGINS; default *, any origin)
  --cors-headers LIST  comma-separated request headers a preflight may allow besides Authorization,
                       Content-Type and Prefer (env PLANTSTORE_CORS_HEADERS; default: any the browser asks for)
  --max-plants N       how many plants the store holds; beyond it creates get a 400 Error (default ${DEFAULT_MAX_PLANTS})
  --max-body BYTES     largest request body accepted, larger ones get 413 (default ${DEFAULT_HTTP_OPTIONS.maxBodyBytes})
  --delay MS           wait this long before every answer (default 0)
  --admin              serve GET/DELETE /__admin/plants (list, reset the store); needs the token too
  --errors-on-demand   answer "Prefer: code=400" with the documented 400 Error (as Prism does)
  --data FILE          start with the plants of a JSON array of NewPlant objects
  --quiet              no per-request log lines
  -h, --help           show this help

Tokens you pass are never printed. Stop with Ctrl-C (SIGINT) or SIGTERM: requests in flight finish first.`;

/** \`plantstore serve\`: resolves when the server has stopped after a signal. */
export async function serve(argv: string[], io: Io): Promise<number> {
  const { values } = parseFlags(argv, {
    host: { type: "string" },
    port: { type: "string" },
    token: { type: "string", multiple: true },
    "cors-origin": { type: "string", multiple: true },
    "cors-headers": { type: "string" },
    "max-plants": { type: "string" },
    "max-body": { type: "string" },
    delay: { type: "string" },
    admin: { type: "boolean" },
    "errors-on-demand": { type: "boolean" },
    data: { type: "string" },
    quiet: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    io.out(SERVE_HELP);
    return 0;
  }
  const env = io.env;
  const tokens = values.token ?? envList(env.PLANTSTORE_TOKENS);
  const server = await startReferenceServer({
    host: values.host ?? env.PLANTSTORE_HOST ?? "127.0.0.1",
    port:
      values.port !== undefined
        ? integerFlag("port", values.port, 4010, 0, 65535)
        : integerFlag("PLANTSTORE_PORT", env.PLANTSTORE_PORT, 4010, 0, 65535, ""),
    tokens,
    corsOrigins:
      values["cors-origin"] ??
      (envList(env.PLANTSTORE_CORS_ORIGINS).length > 0 ? envList(env.PLANTSTORE_CORS_ORIGINS) : ["*"]),
    corsHeaders:
      values["cors-headers"] !== undefined
        ? envList(values["cors-headers"])
        : env.PLANTSTORE_CORS_HEADERS !== undefined
          ? envList(env.PLANTSTORE_CORS_HEADERS)
          : undefined,
    maxPlants: integerFlag("max-plants", values["max-plants"], DEFAULT_MAX_PLANTS, 0, 2 ** 32),
    maxBodyBytes: integerFlag("max-body", values["max-body"], DEFAULT_HTTP_OPTIONS.maxBodyBytes, 0, 2 ** 31),
    delayMs: integerFlag("delay", values.delay, 0, 0, 600_000),
    admin: values.admin === true,
    errorsOnDemand: values["errors-on-demand"] === true,
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
  await onShutdown(io, server.url, () => server.close());
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
