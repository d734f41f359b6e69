import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runnableBlocks, withPorts } from "./docs-blocks.js";
import { tempDir } from "./temp-dir.js";

/** runnableBlocks over one Markdown text, written to a temporary docs folder. */
function blocksOf(markdown: string): ReturnType<typeof runnableBlocks> {
  const root = tempDir("docs-blocks-");
  mkdirSync(join(root, "docs"));
  writeFileSync(join(root, "docs", "x.md"), markdown);
  return runnableBlocks(root, "docs/x.md");
}

describe("runnableBlocks", () => {
  it("takes only the sh blocks under a marker, with their options and the line of their opening fence", () => {
    const md = [
      "```sh",
      "not marked",
      "```",
      "<!-- runnable -->",
      "```sh",
      "echo one",
      "```",
      "<!-- runnable exit=1 installed -->",
      "```bash",
      "false",
      "```",
    ].join("\n");
    expect(blocksOf(md)).toEqual([
      { file: "docs/x.md", line: 5, script: "echo one\n", exit: 0, installed: false },
      { file: "docs/x.md", line: 9, script: "false\n", exit: 1, installed: true },
    ]);
  });

  it.each([
    ["a marker over another kind of block", "<!-- runnable -->\n```js\nx\n```", /must be followed by a sh block/],
    ["a marker with a blank line before its block", "<!-- runnable -->\n\n```sh\nx\n```", /must be followed/],
    ["an unknown option", "<!-- runnable exit=one -->\n```sh\nx\n```", /unknown runnable option "exit=one"/],
    ["a block never closed", "<!-- runnable -->\n```sh\nx", /not closed/],
  ])("refuses %s", (_, md, error) => {
    expect(() => blocksOf(md)).toThrow(error);
  });
});

describe("withPorts", () => {
  const started = { 4010: 50001 };
  const free = { 4010: 60001, 4011: 60002, 4012: 60003 };

  it.each([
    [
      "the reference server's port becomes the started one",
      "curl http://127.0.0.1:4010/plants",
      "curl http://127.0.0.1:50001/plants",
    ],
    [
      "a server the block starts gets a free port",
      "serve --port 4010 &\ncurl :4010",
      "serve --port 60001 &\ncurl :60001",
    ],
    [
      "a proxy the block starts, in front of the started server",
      "proxy --target http://127.0.0.1:4010 --port 4012; curl :4012",
      "proxy --target http://127.0.0.1:50001 --port 60003; curl :60003",
    ],
    ["a port no server stands for is left as written", "curl :4011; echo 40100", "curl :4011; echo 40100"],
  ])("%s", (_, script, expected) => {
    expect(withPorts(script, started, free)).toBe(expected);
  });
});
