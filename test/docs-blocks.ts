import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A shell block of the README or docs/ marked to be run by test/docs-commands.test.ts. The marker is
 * an HTML comment on the line just before the fence, so it does not show on GitHub:
 * `<!-- runnable -->`, with options `exit=N` (the exit code the block must end with, default 0) and
 * `installed` (run from a project that installed the kit, where `npx plantstore` works, rather than
 * from a clone). The output the docs show for it, if any, is the fenced block after it (blank lines
 * between) marked `<!-- output -->`; see {@link outputProblem} for how it is compared.
 */
export interface RunnableBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly script: string;
  readonly exit: number;
  readonly installed: boolean;
  readonly output?: ShownOutput;
}

/** The output a document shows for the runnable block above it. */
export interface ShownOutput {
  /** 1-based line of its opening fence. */
  readonly line: number;
  readonly text: string;
}

const MARKER = /^<!--\s*runnable\b(.*?)-->\s*$/;
const FENCE = /^```(sh|bash)\s*$/;
const OUTPUT_MARKER = /^<!--\s*output\s*-->\s*$/;
const OUTPUT_FENCE = /^```(text)?\s*$/;

/**
 * The Markdown files whose commands must run as written, in the order a reader meets them and the
 * docs test runs them: README.md, then the pages of docs/ in the order of the README's "Reference"
 * table, then any page of docs/ the table does not list, alphabetically.
 */
export function docFiles(root: string): string[] {
  const pages = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort();
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const reference = /^## Reference\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme)?.[1] ?? "";
  const listed = [...reference.matchAll(/\]\(docs\/([\w.-]+\.md)\)/g)].map((m) => m[1]!);
  const ordered = [...new Set(listed)].filter((f) => existsSync(join(root, "docs", f)));
  const rest = pages.filter((f) => !ordered.includes(f));
  return ["README.md", ...[...ordered, ...rest].map((f) => join("docs", f))];
}

/** The closing fence of the block opened at `open` (0-based), or a thrown error naming `where`. */
function closing(lines: readonly string[], open: number, where: string): number {
  const end = lines.findIndex((l, j) => j > open && l.startsWith("```"));
  if (end < 0) throw new Error(`${where}: the block is not closed`);
  return end;
}

/**
 * The runnable blocks of one Markdown file, each with the output shown for it; a marker that marks
 * no shell block, an unknown option, or an output marker that is not under a runnable block, throws.
 */
export function runnableBlocks(root: string, file: string): RunnableBlock[] {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  const blocks: RunnableBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (OUTPUT_MARKER.test(lines[i]!))
      throw new Error(`${file}:${i + 1}: an output marker must follow a runnable block (only blank lines between)`);
    const marker = MARKER.exec(lines[i]!);
    if (marker === null) continue;
    const where = `${file}:${i + 1}`;
    if (!FENCE.test(lines[i + 1] ?? "")) throw new Error(`${where}: a runnable marker must be followed by a sh block`);
    const end = closing(lines, i + 1, where);
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
    const block = { file, line: i + 2, script: lines.slice(i + 2, end).join("\n") + "\n", exit, installed };
    i = end;
    let next = end + 1;
    while (next < lines.length && lines[next]!.trim() === "") next++;
    if (OUTPUT_MARKER.test(lines[next] ?? "")) {
      const at = `${file}:${next + 1}`;
      if (!OUTPUT_FENCE.test(lines[next + 1] ?? ""))
        throw new Error(`${at}: an output marker must be followed by a text block (\`\`\`text or \`\`\`)`);
      const close = closing(lines, next + 1, at);
      blocks.push({ ...block, output: { line: next + 2, text: lines.slice(next + 2, close).join("\n") } });
      i = close;
    } else blocks.push(block);
  }
  return blocks;
}

/** The ports the docs show: the reference server's, the mock's and the proxy's defaults. */
export const DOC_PORTS = [4010, 4011, 4012] as const;

/**
 * The block as it runs: each port the docs use (4010 the reference server, 4011 the mock, 4012 the
 * proxy) becomes the port the run gave it, the same in every block of the run, so two blocks that
 * use one port meet the same server, and a block that starts a server on a port another holds
 * fails, as it would for a reader. (The docs' own servers listen on `--port 0`, never collide.)
 */
export function withPorts(script: string, ports: Readonly<Partial<Record<number, number>>>): string {
  let out = script;
  for (const port of DOC_PORTS) {
    const to = ports[port];
    if (to !== undefined) out = out.replace(new RegExp(`\\b${port}\\b`, "g"), String(to));
  }
  return out;
}

/** How the folder the block ran in is written in the outputs the docs show. */
export const ROOT_SHOWN = "/path/to/plantstore-kit";

/**
 * Output as the docs compare it: what changes from run to run or machine to machine written as a
 * placeholder. `roots` (the folder the block ran in, as given and as resolved) become
 * {@link ROOT_SHOWN}; then ports, seeds, durations, times, millisecond-time ids (the banner's
 * `Date.now()`), key ids, sha256 digests and Node's and curl's versions. Trailing blanks and the
 * blank lines at either end go.
 */
export function normaliseOutput(text: string, roots: readonly string[] = []): string {
  let out = text.replace(/\r\n/g, "\n");
  for (const root of [...roots].sort((a, b) => b.length - a.length)) out = out.split(root).join(ROOT_SHOWN);
  out = out
    .replace(/\b(127\.0\.0\.1|localhost|\[::1\]):\d+/g, "$1:<port>")
    .replace(/\bseed \d+/g, "seed <seed>")
    .replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<time>")
    .replace(/\b\d{1,2}:\d{2}:\d{2}( [AP]M)?\b/g, "<time>")
    .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, "<duration>")
    .replace(/\b1\d{12}\b/g, "<ms-time>")
    .replace(/\bkey (id )?[0-9a-f]{16}\b/g, "key $1<key-id>")
    .replace(/\b[0-9a-f]{64}\b/g, "<sha256>")
    .replace(/\bNode v\d+\.\d+\.\d+/g, "Node <version>")
    .replace(/\bcurl\/\d+(\.\d+)*/g, "curl/<version>");
  const lines = out.split("\n").map((l) => l.trimEnd());
  while (lines.length > 0 && lines[0] === "") lines.shift();
  while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  return lines.join("\n");
}

/** A line of a shown output that stands for any number of lines of the real one (none included). */
export const GAP = "...";

/**
 * Whether the real output is the one shown, both normalised ({@link normaliseOutput}): line for
 * line, except that a line `...` alone stands for any lines (none included). Undefined when it is,
 * else what differs.
 */
export function outputProblem(shown: string, real: string, roots: readonly string[] = []): string | undefined {
  const lines = (text: string): string[] => (text === "" ? [] : text.split("\n"));
  const want = lines(normaliseOutput(shown, roots));
  const got = lines(normaliseOutput(real, roots));
  // The shown lines between gaps, each with the (1-based) line of the shown output it starts at.
  const segments: { lines: string[]; line: number }[] = [{ lines: [], line: 1 }];
  want.forEach((line, k) => {
    if (line === GAP) segments.push({ lines: [], line: k + 2 });
    else segments.at(-1)!.lines.push(line);
  });
  const whole = `\n\nthe real output (normalised):\n${got.join("\n")}`;
  const differs = (shownLine: number, seg: readonly string[], k: number, start: number): string =>
    `shown line ${shownLine + k} is not the real output's line ${start + k + 1}:\n` +
    `  shown: ${seg[k]}\n  real:  ${got[start + k] ?? "(no such line)"}${whole}`;
  // Without a gap at its start the first segment is the output's start; without one at its end the
  // last is its end; each segment in between is found at its first place after the one before.
  let from = 0;
  for (let s = 0; s < segments.length; s++) {
    const { lines: seg, line } = segments[s]!;
    const first = s === 0;
    const last = s === segments.length - 1;
    if (seg.length === 0) continue;
    const mismatch = (start: number): number => seg.findIndex((l, k) => got[start + k] !== l);
    let found: number;
    if (first || last) {
      found = first ? 0 : Math.max(from, got.length - seg.length);
      const k = mismatch(found);
      if (k >= 0 || found + seg.length > got.length) return differs(line, seg, Math.max(k, 0), found);
    } else {
      found = -1;
      for (let k = from; k + seg.length <= got.length && found < 0; k++) if (mismatch(k) < 0) found = k;
      if (found < 0)
        return `shown lines ${line} to ${line + seg.length - 1} are not in the real output after its line ${from}:\n${seg.join("\n")}${whole}`;
    }
    from = found + seg.length;
    if (first && last && from < got.length)
      return `the real output has more lines than shown, from its line ${from + 1}: ${got[from]}${whole}`;
  }
  if (want.length === 0 && got.length > 0) return `nothing is shown, but the block printed${whole}`;
  return undefined;
}
