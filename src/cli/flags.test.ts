import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { runCli } from "../../test/process.js";
import { KitError } from "../errors.js";
import { KIT_ROOT } from "../paths.js";
import { commandValues, parseArgsOptions, parseFlags } from "./args.js";
import { CERTIFICATE } from "./certificate.js";
import { CONFORMANCE } from "./conformance.js";
import { flagsMarkdown, helpText, type CommandFlags, type Flag } from "./flags.js";
import { MOCK } from "./mock.js";
import { PROXY } from "./proxy.js";
import { SERVE } from "./serve.js";

// The flag tables are the one place a flag is written. These tests fail when the parser, a
// command's --help or docs/flags.md no longer says what its table says.

const COMMANDS: readonly CommandFlags[] = [SERVE, MOCK, CONFORMANCE, PROXY, CERTIFICATE];
const DOC = join(KIT_ROOT, "docs", "flags.md");

/** The generated block of a command in docs/flags.md, between its two markers. */
const markers = (command: string): [string, string] => [
  `<!-- flags:${command} (made from src/cli/${command}.ts by src/cli/flags.test.ts; do not edit) -->`,
  `<!-- /flags:${command} -->`,
];

function docBlock(doc: string, command: string): string | undefined {
  const [open, close] = markers(command);
  const start = doc.indexOf(open);
  const end = doc.indexOf(close);
  return start < 0 || end < start ? undefined : doc.slice(start + open.length, end).trim();
}

// PLANTSTORE_UPDATE_DOCS=1 npx vitest run src/cli/flags.test.ts rewrites the blocks from the tables.
if (process.env.PLANTSTORE_UPDATE_DOCS === "1") {
  let doc = readFileSync(DOC, "utf8");
  for (const spec of COMMANDS) {
    const [open, close] = markers(spec.command);
    const block = `${open}\n\n${flagsMarkdown(spec)}\n\n${close}`;
    const start = doc.indexOf(open);
    const end = doc.indexOf(close);
    doc = start < 0 ? `${doc.trimEnd()}\n\n${block}\n` : doc.slice(0, start) + block + doc.slice(end + close.length);
  }
  writeFileSync(DOC, doc);
}

/** A value a flag accepts, for the parser test. */
function sample(flag: Flag): string[] {
  if (flag.type === "boolean") return [];
  if (flag.type === "integer") return [String(flag.min)];
  return [flag.type === "list" ? "a,b" : "x=y"];
}

describe.each(COMMANDS.map((c) => [c.command, c] as const))("the flag table of %s", (command, spec) => {
  const entries = Object.entries(spec.flags);

  it("is what `plantstore " + command + " --help` prints", async () => {
    const args = command === "certificate" ? [command, "verify", "--help"] : [command, "--help"];
    const r = await runCli(args);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(helpText(spec) + "\n");
    for (const [name] of entries) expect(r.stdout).toContain(`--${name}`);
  });

  it("is what docs/flags.md lists (PLANTSTORE_UPDATE_DOCS=1 rewrites it)", () => {
    expect(docBlock(readFileSync(DOC, "utf8"), command)).toBe(flagsMarkdown(spec));
  });

  it("is what the parser accepts: every flag, its aliases, its value type and bounds", () => {
    const options = parseArgsOptions(spec.flags);
    const names = entries.flatMap(([name, flag]) => [name, ...(flag.aliases ?? [])]);
    expect(Object.keys(options).sort()).toEqual(names.sort());
    // Every flag at once (help left out: it stops a command), each read back as its type says.
    const argv = entries.filter(([n]) => n !== "help").flatMap(([name, flag]) => [`--${name}`, ...sample(flag)]);
    const { values } = parseFlags(argv, spec.flags, { allowPositionals: command === "certificate" });
    for (const [name, flag] of entries.filter(([n]) => n !== "help")) {
      const value = (values as Record<string, unknown>)[name];
      if (flag.type === "boolean") expect(value, name).toBe(true);
      else if (flag.type === "integer") expect(value, name).toBe(flag.min);
      else if (flag.type === "list") expect(value, name).toEqual(flag.multiple ? ["a", "b"] : ["a", "b"]);
      else expect(value, name).toEqual(flag.multiple ? ["x=y"] : "x=y");
    }
    for (const [name, flag] of entries.filter(([, f]) => f.type === "integer")) {
      expect(() => parseFlags([`--${name}`, String(flag.max! + 1)], spec.flags)).toThrow(
        `--${name} must be an integer from ${flag.min} to ${flag.max}`,
      );
    }
    expect(() => parseFlags(["--no-such-flag"], spec.flags)).toThrow(KitError);
  });

  it("reads each flag's environment variable when the flag is not given, and the flag first", () => {
    for (const [name, flag] of entries.filter(([, f]) => f.env !== undefined)) {
      const raw = flag.type === "integer" ? String(flag.max) : "one,two";
      const expected =
        flag.type === "integer" ? flag.max : flag.type === "list" || flag.multiple ? ["one", "two"] : "one,two";
      const env = { [flag.env!]: raw };
      expect((parseFlags([], spec.flags, { env }).values as Record<string, unknown>)[name], name).toEqual(expected);
      const given = parseFlags([`--${name}`, ...sample(flag)], spec.flags, { env }).values as Record<string, unknown>;
      expect(given[name], name).not.toEqual(expected);
    }
  });

  it("says everything once: a value name, bounds for integers, defaults within them, a help line", () => {
    for (const [name, flag] of entries) {
      expect(flag.type === "boolean" ? flag.value === undefined : flag.value !== undefined, name).toBe(true);
      expect(flag.help, name).not.toMatch(/\n|default/);
      if (flag.type === "integer") {
        expect([flag.min, flag.max].every(Number.isSafeInteger), name).toBe(true);
        if (typeof flag.default === "number") expect(flag.default >= flag.min! && flag.default <= flag.max!).toBe(true);
      }
    }
  });

  it("names the option a flag maps to after the flag: one name per idea", () => {
    // camelCase of the flag, perhaps a plural, perhaps a unit the flag leaves to its help (Ms, Bytes, File).
    const EXCEPTIONS: Record<string, string> = {
      // The key that signs: in the certificate it is simply `key`.
      "conformance --signing-key": "CertificateInput.key",
    };
    for (const [name, flag] of entries.filter(([, f]) => f.option !== null)) {
      if (EXCEPTIONS[`${command} --${name}`] !== undefined) {
        expect(flag.option).toBe(EXCEPTIONS[`${command} --${name}`]);
        continue;
      }
      const camel = name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
      const [, ...path] = flag.option!.split(".");
      const field = path.at(-1)!;
      const matches = new RegExp(`^${camel}s?(Ms|Bytes|File)?$`).test(field) || path[0] === camel;
      expect(matches, `--${name} maps to ${flag.option}`).toBe(true);
    }
  });
});

describe("no flag outside the tables", () => {
  it("only args.ts calls parseArgs, and each command parses with its own table", () => {
    const dir = join(KIT_ROOT, "src", "cli");
    const read = (name: string): string => readFileSync(join(dir, name), "utf8");
    for (const spec of COMMANDS) {
      const text = read(`${spec.command}.ts`);
      expect(text, spec.command).not.toMatch(/\bparseArgs\(/);
      // Through commandValues (which parses with the table it is given, and answers --help) or parseFlags.
      const own = spec.command.toUpperCase();
      expect(text, spec.command).toMatch(
        new RegExp(`(commandValues\\(argv, ${own}\\b|parseFlags\\([^)]*\\b${own}\\.flags\\b)`),
      );
    }
    expect(read("main.ts")).not.toMatch(/\bparseArgs\(/);
  });
});

describe("fast start", () => {
  /** Runtime imports (not `import type`, not `import()`) of a source file. */
  function staticImports(file: string): string[] {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
    const out: string[] = [];
    for (const node of source.statements) {
      if (ts.isImportDeclaration(node)) {
        const clause = node.importClause;
        const typeOnly =
          clause !== undefined &&
          (clause.isTypeOnly ||
            (clause.name === undefined &&
              clause.namedBindings !== undefined &&
              ts.isNamedImports(clause.namedBindings) &&
              clause.namedBindings.elements.every((e) => e.isTypeOnly)));
        if (!typeOnly) out.push((node.moduleSpecifier as ts.StringLiteral).text);
      } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && !node.isTypeOnly) {
        out.push((node.moduleSpecifier as ts.StringLiteral).text);
      }
    }
    return out;
  }

  it("the bin loads no command before reading its arguments: only Node built-ins and kit leaves", () => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const walk = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of staticImports(file)) {
        if (spec.startsWith(".")) walk(join(file, "..", spec.replace(/\.js$/, ".ts")));
        else if (!spec.startsWith("node:")) packages.add(spec);
      }
    };
    walk(join(KIT_ROOT, "src", "cli", "bin.ts"));
    const loaded = [...seen]
      .map((f) =>
        f
          .slice(KIT_ROOT.length + 1)
          .split("\\")
          .join("/"),
      )
      .sort();
    expect(loaded).toEqual([
      "src/cli/bin.ts",
      "src/cli/fd-write.ts",
      "src/cli/io.ts",
      "src/cli/main.ts",
      "src/cli/server-thread.ts",
      "src/errors.ts",
      "src/paths.ts",
    ]);
    expect([...packages]).toEqual([]);
  });
});

describe("flags npm keeps for itself", () => {
  const start = (argv: string[], env: Record<string, string>) => {
    const err: string[] = [];
    const io = {
      out: () => undefined,
      err: (l: string) => err.push(l),
      env,
      signal: new Promise<string>(() => {}),
      isTty: false,
    };
    const values = commandValues(argv, SERVE, io);
    return { values, err };
  };

  it("warns when `npm start --token X` kept the token (npm_config_token_description), and how to pass it", () => {
    const { values, err } = start([], { npm_lifecycle_event: "start", npm_config_token_description: "X" });
    expect(values?.token ?? []).toEqual([]);
    expect(err).toEqual([
      "plantstore serve: warning: npm took --token as a setting of its own (npm_config_token_description is set), " +
        "so plantstore never saw it: write `npm start -- --token VALUE`",
    ]);
  });

  it("names the script npm ran, and gives a flag without a value as it is written", () => {
    expect(start([], { npm_lifecycle_event: "test", npm_config_admin: "true" }).err).toEqual([
      "plantstore serve: warning: npm took --admin as a setting of its own (npm_config_admin is set), " +
        "so plantstore never saw it: write `npm test -- --admin`",
    ]);
  });

  it("says nothing for npm's settings that only begin with a flag's name, or a flag given by its variable", () => {
    const env = { npm_lifecycle_event: "test", npm_config_spec_x: "1", npm_config_port: "1", PLANTSTORE_PORT: "0" };
    expect(start([], env).err).toEqual([]);
  });

  it("warns of the former token variable only where it is read or ignored, never beside --token", () => {
    expect(start([], { PLANTSTORE_TOKENS: "a" }).err).toEqual([
      "plantstore serve: warning: PLANTSTORE_TOKENS is read as PLANTSTORE_TOKEN, its name in every command; rename it",
    ]);
    expect(start([], { PLANTSTORE_TOKENS: "a,b", PLANTSTORE_TOKEN: "a" }).err).toEqual([
      "plantstore serve: warning: PLANTSTORE_TOKENS is ignored: PLANTSTORE_TOKEN is set, and is the name in every command",
    ]);
    expect(start(["--token", "y"], { PLANTSTORE_TOKENS: "x" }).err).toEqual([]);
  });

  it("says nothing outside npm, when the flag did arrive, or for a setting of npm's own", () => {
    expect(start([], { npm_config_token_description: "X" }).err).toEqual([]);
    const env = { npm_lifecycle_event: "start", npm_config_token_description: "X", npm_config_save: "true" };
    expect(start(["--token", "X"], env).err).toEqual([]);
    expect(start([], { npm_lifecycle_event: "test", npm_config_cache: "/x", npm_config_save: "true" }).err).toEqual([]);
  });
});
