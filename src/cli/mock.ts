import { resolve } from "node:path";
import { loadContract } from "../contract/index.js";
import { KitError } from "../errors.js";
import { startPrism } from "../mock/prism.js";
import { DEV_TOKEN } from "../server/index.js";
import { integerFlag, parseFlags } from "./args.js";
import type { Io } from "./io.js";
import { createPlantCurl } from "./serve.js";

export const MOCK_HELP = `Usage: plantstore mock [options]

Starts the Prism mock (@stoplight/prism-cli) of the Plant Store spec: stateless, answers from the
spec's examples (or, with --dynamic, from data generated from the schemas).

Options:
  --host HOST     address to bind (env PLANTSTORE_HOST; default 127.0.0.1)
  --port PORT     port to bind, 0 for any free port (env PLANTSTORE_MOCK_PORT; default 4011)
  --dynamic       generate answers from the schemas instead of serving the examples
  --seed N        make --dynamic answers reproducible
  --spec FILE     another OpenAPI document (default: the kit's spec/openapi.yaml)
  -h, --help      show this help

Prism accepts any bearer token; "Prefer: code=400" asks it for the documented 400 answer.
Where Prism departs from the contract is listed in the README ("Where the Prism mock departs").
Stop with Ctrl-C (SIGINT) or SIGTERM; Prism stops with it, and also if this process is killed.`;

/** \`plantstore mock\`: runs Prism until a signal, or until Prism exits on its own (exit 2). */
export async function mock(argv: string[], io: Io): Promise<number> {
  const { values } = parseFlags(argv, {
    host: { type: "string" },
    port: { type: "string" },
    dynamic: { type: "boolean" },
    seed: { type: "string" },
    spec: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    io.out(MOCK_HELP);
    return 0;
  }
  if (values.seed !== undefined && values.dynamic !== true)
    throw new KitError("PS_USAGE", "--seed only applies with --dynamic");
  // The spec is read and checked first, so a missing or invalid one is one line, as in conformance.
  const spec = values.spec === undefined ? undefined : resolve(values.spec);
  if (spec !== undefined) await loadContract(spec);
  const signalled = io.signal; // listen from now on, so a Ctrl-C during start-up still stops Prism cleanly
  const prism = await startPrism({
    host: values.host ?? io.env.PLANTSTORE_HOST ?? "127.0.0.1",
    port:
      values.port !== undefined
        ? integerFlag("port", values.port, 4011, 0, 65535)
        : integerFlag("PLANTSTORE_MOCK_PORT", io.env.PLANTSTORE_MOCK_PORT, 4011, 0, 65535, ""),
    dynamic: values.dynamic === true,
    seed: values.seed,
    spec,
    onOutput: (line) => io.err(`[prism] ${line}`),
  });
  io.out(
    `Prism mock of the Plant Store listening on ${prism.url} (${values.dynamic ? `dynamic answers${values.seed === undefined ? "" : `, seed ${values.seed}`}` : "static examples"})`,
  );
  io.out("Any bearer token is accepted. Try it:");
  io.out(`  ${createPlantCurl(prism.url, DEV_TOKEN)}`);
  const outcome = await Promise.race([signalled.then((s) => ({ signal: s })), prism.exited.then((code) => ({ code }))]);
  if ("code" in outcome) {
    throw new KitError("PS_CHILD_FAILED", `Prism exited on its own with code ${outcome.code}`);
  }
  io.out(`${outcome.signal} received: stopping Prism`);
  await prism.stop();
  io.out("stopped");
  return 0;
}
