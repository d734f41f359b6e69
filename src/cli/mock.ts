import { resolve } from "node:path";
import { loadContract, type Contract } from "../contract/index.js";
import { DEFAULT_SPEC } from "../paths.js";
import { shellQuote } from "../shell.js";
import { KitError } from "../errors.js";
import { startPrism } from "../mock/prism.js";
import { DEFAULT_HTTP_OPTIONS, DEV_TOKEN } from "../server/index.js";
import { commandValues } from "./args.js";
import { bindFlags, READY_FILE_FLAG, type CommandFlags } from "./flags.js";
import type { Io } from "./io.js";
import { readyFile } from "./ready.js";
import { createPlantCurl } from "./serve.js";

/** The port \`plantstore mock\` listens on unless told otherwise (serve's plus one). */
export const MOCK_PORT = 4011;

/** \`plantstore mock\`: its flags, its --help and its rows of docs/flags.md. */
export const MOCK = {
  command: "mock",
  usage: "mock [options]",
  description:
    "Starts the Prism mock (@stoplight/prism-cli) of the Plant Store spec: stateless, answers from the\n" +
    "spec's examples (or, with --dynamic, from data generated from the schemas).",
  flags: {
    ...bindFlags({ host: DEFAULT_HTTP_OPTIONS.host, port: MOCK_PORT }, "PLANTSTORE_MOCK_PORT", "PrismOptions"),
    dynamic: {
      type: "boolean",
      help: "generate answers from the schemas instead of serving the examples",
      option: "PrismOptions.dynamic",
    },
    seed: { type: "string", value: "N", help: "make --dynamic answers reproducible", option: "PrismOptions.seed" },
    spec: {
      type: "string",
      value: "FILE",
      help: "another OpenAPI document",
      defaultText: "the kit's spec/openapi.yaml",
      option: "PrismOptions.spec",
    },
    "ready-file": READY_FILE_FLAG,
    help: { type: "boolean", short: "h", help: "show this help", option: null },
  },
  footer:
    'Prism accepts any bearer token; "Prefer: code=400" asks it for the documented 400 answer.\n' +
    'Where Prism departs from the contract is listed in docs/conformance.md ("Where the Prism mock departs from the contract").\n' +
    "Stop with Ctrl-C (SIGINT) or SIGTERM; Prism stops with it, and also if this process is killed.",
} as const satisfies CommandFlags;

/** \`plantstore mock\`: runs Prism until a signal, or until Prism exits on its own (exit 2). */
export async function mock(argv: string[], io: Io): Promise<number> {
  const values = commandValues(argv, MOCK, io);
  if (values === undefined) return 0;
  if (values.seed !== undefined && values.dynamic !== true)
    throw new KitError("PS_USAGE", "--seed only applies with --dynamic");
  // The spec is read and checked first, so a missing or invalid one is one line, as in conformance.
  const spec = values.spec === undefined ? undefined : resolve(values.spec);
  const contract = spec === undefined ? undefined : await loadContract(spec);
  // Another document than the kit's: the banner names it, and the line to try is one of its own operations.
  const other = contract !== undefined && spec !== DEFAULT_SPEC ? contract : undefined;
  const ready = readyFile(values["ready-file"]);
  const signalled = io.signal; // listen from now on, so a Ctrl-C during start-up still stops Prism cleanly
  const prism = await startPrism({
    host: values.host,
    port: values.port,
    dynamic: values.dynamic,
    seed: values.seed,
    spec,
    onOutput: (line) => io.err(`[prism] ${line}`),
  });
  io.out(
    `Prism mock of ${other === undefined ? "the Plant Store" : JSON.stringify(other.title)} listening on ${prism.url} (${values.dynamic ? `dynamic answers${values.seed === undefined ? "" : `, seed ${values.seed}`}` : "static examples"})`,
  );
  const tryIt = other === undefined ? createPlantCurl(prism.url, DEV_TOKEN) : plainGet(other, prism.url);
  io.out(`Any bearer token is accepted.${tryIt === undefined ? "" : " Try it:"}`);
  if (tryIt !== undefined) io.out(`  ${tryIt}`);
  ready?.ready(prism.url);
  const outcome = await Promise.race([signalled.then((s) => ({ signal: s })), prism.exited.then((code) => ({ code }))]);
  if ("code" in outcome) {
    ready?.remove();
    throw new KitError("PS_CHILD_FAILED", `Prism exited on its own with code ${outcome.code}`);
  }
  io.out(`${outcome.signal} received: stopping Prism`);
  await prism.stop();
  ready?.remove();
  io.out("stopped");
  return 0;
}

/** A curl of the document's first GET without path parameters or credentials, if it has one. */
function plainGet(contract: Contract, url: string): string | undefined {
  const op = contract.operations.find(
    (o) => o.method.toLowerCase() === "get" && !o.pathTemplate.includes("{") && !o.authRequired,
  );
  return op === undefined ? undefined : `curl -sS ${shellQuote(`${url}${op.pathTemplate}`)}`;
}
