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
