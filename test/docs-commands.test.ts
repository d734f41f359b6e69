import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KIT_ROOT } from "../src/paths.js";
import { cloneStatus, makeClone, startBackground, type Background } from "./docs-clone.js";
import { docFiles, runnableBlocks, withPorts, type RunnableBlock } from "./docs-blocks.js";
import { BLOCK_LIMIT_MS, freePort, freshEnv, runBlock, runDocBlock } from "./run-block.js";
import { tempDir } from "./temp-dir.js";

// The docs as a reader follows them: every shell block of README.md and docs/*.md marked
// `<!-- runnable -->`, in the order of docFiles (the README, then the pages in the order of its
// Reference table, then the rest) and of each page, one after the other in ONE fresh clone of the
// repository (test/docs-clone.ts: the working tree's tracked files committed in a new repository,
// dist/ as npm run build left it), each block starting from the variables the blocks before it
// exported, as in one terminal. The servers the README asks to keep running in other terminals
// (`serve --admin --errors-on-demand` on 4010, `mock` on 4011) run from the clone on free ports,
// which stand for 4010 and 4011 in every block (4012 too gets one port for the whole run). A block
// fails on another exit code than its marker's, on its time limit, when it leaves a process behind,
// or when it prints other than the output the docs show under `<!-- output -->`, normalised
// (test/docs-blocks.ts). At the end the clone's git status must be clean: the blocks write into
// scratch/, which .gitignore lists. Blocks marked `installed` run in test/package.test.ts.

const files = docFiles(KIT_ROOT);
const all = files.flatMap((file) => runnableBlocks(KIT_ROOT, file));
const blocks = all.filter((b) => !b.installed);
const named = (b: RunnableBlock): string => `${b.file}:${b.line}`;

/** A block that starts a process in the background and waits for it. */
const waits = (b: RunnableBlock): boolean => /&[ \t]*$/m.test(b.script) && /^\s*(until|while)\b/m.test(b.script);
/** The commands of a block that start one of the kit's servers in the background (with their continuation lines). */
const serverStarts = (b: RunnableBlock): string[] =>
  b.script.match(/^.*\b(serve|mock|proxy)\b(?:[^\n]*\\\n)*[^\n]*&[ \t]*$/gm) ?? [];

describe("the runnable blocks as written", () => {
  it("there are some, and every page's blocks are found", () => {
    expect(blocks.length).toBeGreaterThan(0);
    expect(new Set(files).size).toBe(files.length);
  });

  it.for(all.filter(waits).map((b) => [named(b), b] as const))(
    "%s: waits for its server only while the server runs, and then shows its log",
    ([, block]) => {
      // The idiom: until READY; do kill -0 $PID || break; sleep; done, then READY || { cat LOG; false; }
      expect(block.script).toMatch(/\bkill -0 \$\w+/);
      expect(block.script).toMatch(/\|\| \{ cat \S+; false; \}/);
    },
  );

  it.for(all.filter((b) => serverStarts(b).length > 0).map((b) => [named(b), b] as const))(
    "%s: starts its server on any free port (--port 0), so it collides with no server the reader runs",
    ([, block]) => {
      for (const start of serverStarts(block)) expect(start).toMatch(/--port 0\b/);
    },
  );

  it.for(blocks.filter((b) => b.script.includes("scratch/")).map((b) => [named(b), b] as const))(
    "%s: makes scratch/ before it writes there, so it also runs alone",
    ([, block]) => {
      expect(block.script).toMatch(/^mkdir -p scratch\b/m);
    },
  );
});

describe("every runnable block of the README and docs/, in order, in one fresh clone", () => {
  const clone = tempDir("docs-clone-");
  const work = tempDir("docs-run-");
  const servers: Background[] = [];
  const ports: Record<number, number> = {};
  let env = freshEnv();
  let ran = 0;

  beforeAll(async () => {
    makeClone(KIT_ROOT, clone);
    const start = (args: string[], ready: string): Promise<Background> =>
      startBackground(clone, args, join(work, ready)).then((s) => (servers.push(s), s));
    const [reference, mock] = await Promise.all([
      start(["serve", "--admin", "--errors-on-demand", "--quiet"], "serve.url"),
      start(["mock"], "mock.url"),
    ]);
    ports[4010] = Number(new URL(reference!.url).port);
    ports[4011] = Number(new URL(mock!.url).port);
    ports[4012] = await freePort();
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    const installed = all.length - blocks.length;
    console.log(
      `docs-commands: ran ${ran} of ${blocks.length} runnable shell blocks in order in one clone, from ` +
        `${new Set(blocks.map((b) => b.file)).size} of ${files.length} Markdown files, ` +
        `${blocks.filter((b) => b.output !== undefined).length} with their shown output compared ` +
        `(and ${installed} marked installed: test/package.test.ts runs those)`,
    );
  }, 30_000);

  it.for(blocks.map((b) => [named(b), b] as const))(
    "%s runs as written and prints what the docs show",
    { timeout: BLOCK_LIMIT_MS + 30_000 },
    async ([, block]) => {
      const { problem, run } = await runDocBlock(block, clone, { ports, env, envFile: join(work, "env") });
      if (run.env !== undefined) env = run.env;
      ran++;
      expect(problem).toBeUndefined();
    },
  );

  it("leaves the clone's git status clean, and nothing ignored but in scratch/, dist/ and node_modules", () => {
    const left = cloneStatus(clone).filter((l) => !/^!! (scratch\/|dist\/|node_modules$)/.test(l));
    expect(left, "following the docs left these in the clone (the docs' commands write into scratch/)").toEqual([]);
  });

  // The idiom the static check above asks for, proved: each block that waits for a server it starts,
  // with that server's port taken, must end (well before the hang guard) with the server's log.
  it.for(blocks.filter(waits).map((b) => [named(b), b] as const))(
    "%s stops waiting when its server exits, and shows why",
    { timeout: BLOCK_LIMIT_MS + 30_000 },
    async ([, block]) => {
      const taken: Server = createServer();
      await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
      try {
        const { port } = taken.address() as { port: number };
        const run = await runBlock(withPorts(block.script.replace(/--port 0\b/g, `--port ${port}`), ports), clone);
        expect(run.timedOut).toBe(false);
        expect(run.leftBehind).toBe(false);
        expect(run.code).not.toBe(0);
        expect(run.output).toContain("PS_PORT_IN_USE");
      } finally {
        await new Promise((resolve) => taken.close(resolve));
      }
    },
  );
});
