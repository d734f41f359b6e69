import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A shell block of the README or docs/ marked to be run by test/docs-commands.test.ts. The marker is
 * an HTML comment on the line just before the fence, so it does not show on GitHub:
 * `<!-- runnable -->`, with options `exit=N` (the exit code the block must end with, default 0) and
 * `installed` (run from a project that installed the kit, where `npx plantstore` works, rather than
 * from a clone).
 */
export interface RunnableBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly script: string;
  readonly exit: number;
  readonly installed: boolean;
}

const MARKER = /^<!--\s*runnable\b(.*?)-->\s*$/;
const FENCE = /^```(sh|bash)\s*$/;

/** The Markdown files whose commands must run as written: README.md and docs/*.md. */
export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => join("docs", f));
  return ["README.md", ...docs];
}

/** The runnable blocks of one Markdown file; a marker that marks no shell block, or an unknown option, throws. */
export function runnableBlocks(root: string, file: string): RunnableBlock[] {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  const blocks: RunnableBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i]!);
    if (marker === null) continue;
    const where = `${file}:${i + 1}`;
    if (!FENCE.test(lines[i + 1] ?? "")) throw new Error(`${where}: a runnable marker must be followed by a sh block`);
    const end = lines.findIndex((l, j) => j > i + 1 && l.startsWith("```"));
    if (end < 0) throw new Error(`${where}: the runnable block is not closed`);
    let exit = 0;
    let installed = false;
    for (const option of marker[1]!
      .trim()
      .split(/\s+/)
      .filter((o) => o !== "")) {
      const [key, value] = option.split("=", 2);
      if (key === "exit" && /^\d+$/.test(value ?? "")) exit = Number(value);
      else if (key === "installed" && value === undefined) installed = true;
      else throw new Error(`${where}: unknown runnable option ${JSON.stringify(option)}`);
    }
    blocks.push({ file, line: i + 2, script: lines.slice(i + 2, end).join("\n") + "\n", exit, installed });
    i = end;
  }
  return blocks;
}

/** The ports the docs show: the reference server's, the mock's and the proxy's defaults. */
export const DOC_PORTS = [4010, 4011, 4012] as const;

/**
 * The block as it runs: the ports the docs use (4010 the reference server, 4011 the mock, 4012 the
 * proxy) become the ports of the servers the test started, or, where the block starts a server on
 * that port itself (`--port N`), a free port of its own.
 */
export function withPorts(
  script: string,
  started: Readonly<Record<number, number>>,
  free: Readonly<Record<number, number>>,
): string {
  let out = script;
  for (const port of DOC_PORTS) {
    const own = new RegExp(`--port ${port}\\b`).test(script);
    const to = own ? free[port] : started[port];
    if (to !== undefined) out = out.replace(new RegExp(`\\b${port}\\b`, "g"), String(to));
  }
  return out;
}
