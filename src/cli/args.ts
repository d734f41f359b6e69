import { resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { KitError } from "../errors.js";
import { helpText, type CommandFlags, type Flag, type FlagTable, type FlagValues } from "./flags.js";
import type { Io } from "./io.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** The node:util parseArgs options of a flag table: each flag, and its aliases, as a string or a boolean. */
export function parseArgsOptions(table: FlagTable): Options {
  const options: Options = {};
  for (const [name, flag] of Object.entries(table)) {
    const option = {
      type: flag.type === "boolean" ? ("boolean" as const) : ("string" as const),
      ...(flag.multiple ? { multiple: true } : {}),
    };
    options[name] = flag.short === undefined ? option : { ...option, short: flag.short };
    for (const alias of flag.aliases ?? []) options[alias] = option;
  }
  return options;
}

export interface ParseFlagsOptions {
  /** Where a flag's environment variable is read (io.env); none: variables are not read. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly allowPositionals?: boolean;
  /**
   * Integer flags checked when first read rather than at once, so a command can read them where it
   * handles their errors (conformance writes them into its reports).
   */
  readonly lazyIntegers?: boolean;
}

/**
 * A command's start: its flags parsed from the command line and the environment, or undefined when
 * --help was asked for (the help is printed, and the command exits 0).
 */
export function commandValues<T extends FlagTable>(
  argv: readonly string[],
  spec: CommandFlags<T>,
  io: Io,
  options: Omit<ParseFlagsOptions, "env"> = {},
): FlagValues<T> | undefined {
  for (const line of formerEnvWarnings(spec.flags, argv, io.env))
    io.err(`plantstore ${spec.command}: warning: ${line}`);
  const { values } = parseFlags(argv, spec.flags, { ...options, env: io.env });
  const script = io.env.npm_lifecycle_event;
  const rerun = script === "start" || script === "test" ? `npm ${script}` : `npm run ${script ?? "<script>"}`;
  for (const [name, key] of npmTook(spec.flags, argv, io.env)) {
    const value = spec.flags[name]!.type === "boolean" ? "" : " VALUE";
    io.err(
      `plantstore ${spec.command}: warning: npm took --${name} as a setting of its own (${key} is set), ` +
        `so plantstore never saw it: write \`${rerun} -- --${name}${value}\``,
    );
  }
  if ((values as { help?: unknown }).help !== true) return values;
  io.out(helpText(spec));
  return undefined;
}

/**
 * Parses a command line by its flag table: strict (an unknown flag or a missing value is a PS_USAGE
 * error naming it), then each flag from the command line, else from its environment variable, else
 * its default; integers checked against their bounds, lists split on commas.
 */
export function parseFlags<T extends FlagTable>(
  argv: readonly string[],
  table: T,
  options: ParseFlagsOptions = {},
): { values: FlagValues<T>; positionals: string[] } {
  // An integer flag that may go without its value (--generate [N]) gets the value it means when bare.
  const args = argv.flatMap((a, i) => {
    const flag = a.startsWith("--") ? table[a.slice(2)] : undefined;
    return flag?.bare !== undefined && !/^\d+$/.test(argv[i + 1] ?? "") ? [a, String(flag.bare)] : [a];
  });
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      options: parseArgsOptions(table),
      strict: true,
      allowPositionals: options.allowPositionals === true,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new KitError("PS_USAGE", `${message.split("\n").join(" ")} (see --help)`);
  }
  const given = parsed.values as Record<string, string | boolean | (string | boolean)[] | undefined>;
  const values: Record<string, unknown> = {};
  // With --help nothing else is read, so a bad value beside it does not hide the help.
  const lazy = options.lazyIntegers === true || given.help === true;
  for (const [name, flag] of Object.entries(table)) {
    const read = (): unknown => flagValue(name, flag, given, options.env);
    if (flag.type === "integer" && lazy) {
      let value: { v: unknown } | undefined;
      Object.defineProperty(values, name, {
        enumerable: true,
        get: () => (value ??= { v: read() }).v,
      });
    } else values[name] = read();
  }
  return { values: values as FlagValues<T>, positionals: parsed.positionals };
}

/** One flag's value: from the command line (its own name first, then its aliases), its variable, or its default. */
function flagValue(
  name: string,
  flag: Flag,
  given: Record<string, string | boolean | (string | boolean)[] | undefined>,
  env: Readonly<Record<string, string | undefined>> | undefined,
): unknown {
  const names = [name, ...(flag.aliases ?? [])];
  if (flag.type === "boolean")
    return names.some((n) => given[n] === true || (Array.isArray(given[n]) && given[n].length > 0));
  const fromArgs = flag.multiple
    ? names.flatMap((n) => (given[n] as string[] | undefined) ?? [])
    : names.map((n) => given[n] as string | undefined).find((v) => v !== undefined);
  const fromEnv =
    flag.env === undefined
      ? undefined
      : (env?.[flag.env] ?? (flag.formerEnv === undefined ? undefined : env?.[flag.formerEnv]));
  const hasArgs = flag.multiple ? (fromArgs as string[]).length > 0 : fromArgs !== undefined;
  if (!hasArgs && fromEnv === undefined) {
    return Array.isArray(flag.default) ? [...flag.default] : flag.default;
  }
  if (flag.type === "integer") {
    // An error names the flag, or the variable when the value came from it.
    const [min, max] = [flag.min ?? Number.MIN_SAFE_INTEGER, flag.max ?? Number.MAX_SAFE_INTEGER];
    return hasArgs
      ? integerFlag(name, fromArgs as string, 0, min, max)
      : integerFlag(flag.env!, fromEnv, 0, min, max, "");
  }
  // A variable of a list or a repeatable flag is comma-separated; a list flag's values are too.
  if (!hasArgs) return flag.type === "list" || flag.multiple ? envList(fromEnv) : fromEnv;
  if (flag.type === "list") return (flag.multiple ? (fromArgs as string[]) : [fromArgs as string]).flatMap(envList);
  return fromArgs;
}

/** Reads an integer flag (or, with prefix "", an environment variable) within bounds; the error names it. */
export function integerFlag(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
  prefix = "--",
): number {
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) {
    throw new KitError(
      "PS_USAGE",
      `${prefix}${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`,
    );
  }
  return Number(raw);
}

/** A comma-separated environment variable as a list, empty entries dropped. */
export function envList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** A `--report FORMAT=FILE` flag; the file is resolved against the working folder. */
export function parseReportFlag<F extends string = "json" | "junit">(
  value: string,
  formats: readonly F[] = ["json", "junit"] as unknown as readonly F[],
): { format: F; file: string } {
  const m = /^([a-z]+)=(.+)$/.exec(value);
  if (m === null || !(formats as readonly string[]).includes(m[1]!)) {
    const allowed = formats.map((f) => `${f}=FILE`);
    const list = allowed.length <= 2 ? allowed.join(" or ") : `${allowed.slice(0, -1).join(", ")} or ${allowed.at(-1)}`;
    throw new KitError("PS_USAGE", `--report ${JSON.stringify(value)} must be ${list}`);
  }
  return { format: m[1] as F, file: resolve(m[2] as string) };
}

/** Flags that are settings of npm's own too: npm may set them for reasons of its own. */
const NPM_OWN = new Set(["help", "only", "quiet", "save", "strict", "target", "verbose"]);

/** Whether the command line gives a flag, by its name or an alias. */
const given = (argv: readonly string[], name: string, flag: Flag): boolean =>
  [name, ...(flag.aliases ?? [])].some((n) => argv.some((a) => a === `--${n}` || a.startsWith(`--${n}=`)));

/** A former variable's name still set: read in place of the new one (a warning), or ignored beside it. */
function formerEnvWarnings(
  table: FlagTable,
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const lines: string[] = [];
  for (const [name, flag] of Object.entries(table)) {
    if (flag.formerEnv === undefined || env[flag.formerEnv] === undefined || given(argv, name, flag)) continue;
    lines.push(
      env[flag.env!] === undefined
        ? `${flag.formerEnv} is read as ${flag.env}, its name in every command; rename it`
        : `${flag.formerEnv} is ignored: ${flag.env} is set, and is the name in every command`,
    );
  }
  return lines;
}

/**
 * Flags npm kept for itself: `npm start --token X` sets npm's own `npm_config_token_description`
 * (npm expands an unknown flag to a setting it begins) and starts the script without it. Read from
 * the variables npm sets for a script, for flags the command line did not give.
 */
function npmTook(
  table: FlagTable,
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): [string, string][] {
  if (env.npm_lifecycle_event === undefined) return [];
  const keys = Object.keys(env).filter((k) => k.startsWith("npm_config_"));
  const took: [string, string][] = [];
  for (const [name, flag] of Object.entries(table)) {
    // Given on the command line, or by its own variable: plantstore has it.
    if (NPM_OWN.has(name) || given(argv, name, flag) || (flag.env !== undefined && env[flag.env] !== undefined))
      continue;
    // The name itself, or the one expansion of it npm makes to a setting of its own (`token-description`).
    const key = `npm_config_${name.replace(/-/g, "_")}`;
    const found = keys.find((k) => k === key || k === `${key}_description`);
    if (found !== undefined) took.push([name, found]);
  }
  return took;
}
