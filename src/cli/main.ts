import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KitError } from "../errors.js";
import { KIT_ROOT } from "../paths.js";
import type { Io } from "./io.js";

const HELP = `Usage: plantstore <command> [options]

Commands:
  serve         start the in-memory reference server (stateful, correct to the letter)
  conformance   replay fixtures against a target URL and judge every answer by the spec
  mock          start the Prism mock of the spec (stateless)
  proxy         forward traffic to a server and judge every exchange by the spec (a CI verdict)
  certificate   verify a certificate a conformance run wrote (certificate verify FILE)

Run "plantstore <command> --help" for a command's options.
Exit codes: 0 pass, 1 contract violations found, 2 could not run (bad flag, spec, fixture, target).`;

type Command = (argv: string[], io: Io) => Promise<number>;

// Each command is loaded only once its name is read: --version and --help load no Ajv, contract or
// harness, and a command loads only what it needs (docs/startup.md has the figures).
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import("./serve.js")).serve,
  conformance: async () => (await import("./conformance.js")).conformance,
  mock: async () => (await import("./mock.js")).mock,
  proxy: async () => (await import("./proxy.js")).proxy,
  certificate: async () => (await import("./certificate.js")).certificate,
};

/** Runs the CLI; returns the exit code. Every error becomes a message and exit code 2. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.out(HELP);
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-v") {
    io.out(JSON.parse(readFileSync(join(KIT_ROOT, "package.json"), "utf8")).version);
    return 0;
  }
  const load = COMMANDS[name];
  if (load === undefined) {
    io.err(
      `plantstore: unknown command ${JSON.stringify(name)} (commands: ${Object.keys(COMMANDS).join(", ")}; see --help)`,
    );
    return 2;
  }
  try {
    return await (
      await load()
    )(rest, io);
  } catch (error) {
    if (error instanceof KitError) io.err(`plantstore ${name}: ${error.message} [${error.code}]`);
    else if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      const taken = new KitError(
        "PS_PORT_IN_USE",
        `${(error as Error).message}; choose another --port, or --port 0 for any free port`,
      );
      io.err(`plantstore ${name}: ${taken.message} [${taken.code}]`);
    } else io.err(`plantstore ${name}: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
}
