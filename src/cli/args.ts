import { resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { KitError } from "../errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** parseArgs, strict, with every mistake turned into a PS_USAGE error naming the flag. */
export function parseFlags<O extends Options>(
  argv: string[],
  options: O,
  allowPositionals = false,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: boolean }>> {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new KitError("PS_USAGE", `${message.split("\n").join(" ")} (see --help)`);
  }
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
export function parseReportFlag(value: string): { format: "json" | "junit"; file: string } {
  const m = /^(json|junit)=(.+)$/.exec(value);
  if (m === null) throw new KitError("PS_USAGE", `--report ${JSON.stringify(value)} must be json=FILE or junit=FILE`);
  return { format: m[1] as "json" | "junit", file: resolve(m[2] as string) };
}
