// One flag table per command: each flag written once, with its type, default, value name, help line
// and the option it maps to. The parser (args.ts), the command's --help and docs/flags.md are made
// from it; src/cli/flags.test.ts fails when one of them no longer agrees with the table.
// A leaf module: it imports nothing, so a command's table costs nothing to load.

export type FlagType = "boolean" | "string" | "integer" | "list";

export interface Flag {
  /** boolean: present or not; string: one value; integer: checked against min and max; list: comma-separated. */
  readonly type: FlagType;
  /** The flag may be given several times; every value is kept (a list flag's values are joined). */
  readonly multiple?: boolean;
  readonly short?: string;
  /** Other names accepted for the same flag (an older spelling); shown in --help and the docs. */
  readonly aliases?: readonly string[];
  /** The value's name in --help: FILE, URL, N. */
  readonly value?: string;
  /** What the flag does, in one line. */
  readonly help: string;
  /** More, when one line cannot say it (paragraphs): --help wraps them under the line, the docs add them to the row. */
  readonly more?: string | readonly string[];
  /** The value when neither the flag nor its environment variable is given. */
  readonly default?: string | number | readonly string[];
  /** How --help and the docs state the default when the value alone would not say it. */
  readonly defaultText?: string;
  /** The value of an integer flag given without one (`--generate` alone means `--generate 100`). */
  readonly bare?: number;
  readonly min?: number;
  readonly max?: number;
  /** An environment variable read when the flag is not given (a list flag's variable is comma-separated). */
  readonly env?: string;
  /** A former name of `env`, still read when `env` is not set, with a warning to rename it. */
  readonly formerEnv?: string;
  /** The option it becomes (`RunOptions.timeoutMs`), or null: the CLI itself acts on it. */
  readonly option: string | null;
  /** The section of --help it is listed under; flags without one go under "Options". */
  readonly section?: string;
}

export type FlagTable = Readonly<Record<string, Flag>>;

/** `--ready-file FILE` of serve, mock and proxy (ready.ts), written once. */
export const READY_FILE_FLAG = {
  type: "string",
  value: "FILE",
  help: "once listening, write the URL to FILE (atomically), for a script to wait on; removed on stop",
  option: null,
} as const satisfies Flag;

/** --host and --port of a server command (serve, mock): the same words, its own port variable and default. */
export function bindFlags(
  defaults: { readonly host: string; readonly port: number },
  portEnv: string,
  options: string,
) {
  return {
    host: {
      type: "string",
      value: "HOST",
      help: "address to bind",
      env: "PLANTSTORE_HOST",
      default: defaults.host,
      option: `${options}.host`,
    },
    port: {
      type: "integer",
      value: "PORT",
      help: "port to bind, 0 for any free port",
      min: 0,
      max: 65535,
      env: portEnv,
      default: defaults.port,
      option: `${options}.port`,
    },
  } as const satisfies FlagTable;
}

/** A command as --help and docs/flags.md describe it. */
export interface CommandFlags<T extends FlagTable = FlagTable> {
  readonly command: string;
  /** The usage line after "Usage: plantstore ". */
  readonly usage: string;
  /** What the command does, a paragraph (wrapped as written). */
  readonly description: string;
  readonly flags: T;
  /** Text after the options: exit codes, how to stop it. */
  readonly footer?: string;
}

type Value<F> = F extends { type: "boolean" }
  ? boolean
  : F extends { type: "integer" }
    ? number
    : F extends { type: "list" }
      ? string[]
      : F extends { multiple: true }
        ? string[]
        : string;

/** The values a table's flags parse to: booleans always set, flags with a default always set. */
export type FlagValues<T extends FlagTable> = {
  -readonly [K in keyof T]: Value<T[K]> | (T[K] extends { type: "boolean" } | { default: unknown } ? never : undefined);
};

/** The flag as --help writes it: `-h, --help`, `--port PORT`, `--generate [N]`. */
export function flagLabel(name: string, flag: Flag): string {
  const value = flag.value === undefined ? "" : flag.bare === undefined ? ` ${flag.value}` : ` [${flag.value}]`;
  return `${flag.short === undefined ? "" : `-${flag.short}, `}--${name}${value}`;
}

/** The default as --help and the docs state it, or undefined when there is none. */
export function defaultText(flag: Flag): string | undefined {
  if (flag.defaultText !== undefined) return flag.defaultText;
  if (flag.default === undefined) return undefined;
  if (Array.isArray(flag.default)) return flag.default.join(",");
  return String(flag.default);
}

/** The notes after a flag's help line: repeatable, bounds, alias, environment variable, default. */
export function flagNotes(flag: Flag): string[] {
  const notes: string[] = [];
  if (flag.multiple) notes.push("repeatable");
  if (flag.type === "integer" && flag.min !== undefined && flag.max !== undefined)
    notes.push(`${flag.min} to ${flag.max}`);
  if (flag.aliases !== undefined) notes.push(`alias ${flag.aliases.map((a) => `--${a}`).join(", ")}`);
  if (flag.env !== undefined) notes.push(`env ${flag.env}`);
  const d = defaultText(flag);
  if (d !== undefined) notes.push(`default ${d}`);
  return notes;
}

/** Words wrapped to `width`, each line after the first indented by `indent`. */
export function wrap(text: string, first: string, indent: number, width = 100): string[] {
  const lines: string[] = [];
  let line = first;
  const pad = " ".repeat(indent);
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line.trim() !== "" && line.length + 1 + word.length > width && line.length > indent) {
      lines.push(line.trimEnd());
      line = pad;
    }
    line += line.length === 0 || line.endsWith(" ") ? word : ` ${word}`;
  }
  lines.push(line.trimEnd());
  return lines;
}

const COLUMN = 28;

/** The --help text of a command, made from its table. */
export function helpText(spec: CommandFlags): string {
  const sections = new Map<string, [string, Flag][]>();
  for (const [name, flag] of Object.entries(spec.flags)) {
    const section = flag.section ?? "Options";
    sections.set(section, [...(sections.get(section) ?? []), [name, flag]]);
  }
  const out = [`Usage: plantstore ${spec.usage}`, "", spec.description];
  for (const [section, flags] of sections) {
    out.push("", `${section}:`);
    for (const [name, flag] of flags) {
      const label = `  ${flagLabel(name, flag)}`;
      const notes = flagNotes(flag);
      const text = `${flag.help}${notes.length === 0 ? "" : ` (${notes.join("; ")})`}`;
      const first = label.length + 2 <= COLUMN ? label.padEnd(COLUMN) : undefined;
      if (first === undefined) out.push(label);
      out.push(...wrap(text, first ?? " ".repeat(COLUMN), COLUMN));
      for (const paragraph of paragraphs(flag.more)) out.push(...wrap(paragraph, " ".repeat(COLUMN + 2), COLUMN + 2));
    }
  }
  if (spec.footer !== undefined) out.push("", spec.footer);
  return out.join("\n");
}

const paragraphs = (more: string | readonly string[] | undefined): readonly string[] =>
  more === undefined ? [] : typeof more === "string" ? [more] : more;

const cell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim();

/** A command's flags as a Markdown table, for docs/flags.md. */
export function flagsMarkdown(spec: CommandFlags): string {
  const rows = [
    "| Flag | Type | Default | Environment | Maps to | What it does |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const [name, flag] of Object.entries(spec.flags)) {
    const names = [flagLabel(name, flag), ...(flag.aliases ?? []).map((a) => `--${a}`)];
    const type =
      flag.type === "integer" && flag.min !== undefined
        ? `integer ${flag.min} to ${flag.max}`
        : flag.type === "list"
          ? "comma-separated list"
          : flag.type;
    const d = defaultText(flag);
    rows.push(
      `| ${names.map((n) => `\`${n}\``).join("<br>")} | ${type}${flag.multiple ? ", repeatable" : ""} | ${d === undefined ? "" : cell(d)} | ${
        flag.env === undefined
          ? ""
          : `\`${flag.env}\`${flag.formerEnv === undefined ? "" : ` (formerly \`${flag.formerEnv}\`)`}`
      } | ${flag.option === null ? "(the CLI)" : `\`${flag.option}\``} | ${cell([flag.help, ...paragraphs(flag.more)].join(". "))} |`,
    );
  }
  return [`\`plantstore ${spec.usage}\``, "", ...rows].join("\n");
}
