import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { docFiles, normaliseOutput, outputProblem, runnableBlocks, withPorts } from "./docs-blocks.js";
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

  it("takes the output shown under `<!-- output -->` after a runnable block, blank lines between", () => {
    const md = [
      "<!-- runnable -->",
      "```sh",
      "echo one; echo two",
      "```",
      "",
      "<!-- output -->",
      "```text",
      "one",
      "two",
      "```",
      "<!-- runnable -->",
      "```sh",
      "true",
      "```",
      "```",
      "not an output: no marker",
      "```",
    ].join("\n");
    expect(blocksOf(md)).toEqual([
      {
        file: "docs/x.md",
        line: 2,
        script: "echo one; echo two\n",
        exit: 0,
        installed: false,
        output: { line: 7, text: "one\ntwo" },
      },
      { file: "docs/x.md", line: 12, script: "true\n", exit: 0, installed: false },
    ]);
  });

  it.each([
    ["a marker over another kind of block", "<!-- runnable -->\n```js\nx\n```", /must be followed by a sh block/],
    ["a marker with a blank line before its block", "<!-- runnable -->\n\n```sh\nx\n```", /must be followed/],
    ["an unknown option", "<!-- runnable exit=one -->\n```sh\nx\n```", /unknown runnable option "exit=one"/],
    ["a block never closed", "<!-- runnable -->\n```sh\nx", /not closed/],
    [
      "an output marker under no runnable block",
      "```sh\nx\n```\n<!-- output -->\n```\nx\n```",
      /must follow a runnable/,
    ],
    [
      "an output marker after prose",
      "<!-- runnable -->\n```sh\nx\n```\nSo:\n<!-- output -->\n```\nx\n```",
      /must follow/,
    ],
    [
      "an output marker over a sh block",
      "<!-- runnable -->\n```sh\nx\n```\n<!-- output -->\n```sh\nx\n```",
      /text block/,
    ],
    ["an output never closed", "<!-- runnable -->\n```sh\nx\n```\n<!-- output -->\n```\nx", /not closed/],
  ])("refuses %s", (_, md, error) => {
    expect(() => blocksOf(md)).toThrow(error);
  });
});

describe("docFiles", () => {
  it("lists the README, then the pages in the order of its Reference table, then the others alphabetically", () => {
    const root = tempDir("docs-order-");
    mkdirSync(join(root, "docs"));
    for (const page of ["a.md", "b.md", "c.md", "d.md", "notes.txt"]) writeFileSync(join(root, "docs", page), "");
    const readme = [
      "# Kit",
      "See [d](docs/d.md) first.",
      "## Reference",
      "| [docs/c.md](docs/c.md) | c |",
      "| [docs/a.md](docs/a.md) | a; also [c](docs/c.md) and [gone](docs/gone.md) |",
      "## Licence",
      "[b](docs/b.md)",
    ].join("\n");
    writeFileSync(join(root, "README.md"), readme);
    expect(docFiles(root)).toEqual(["README.md", "docs/c.md", "docs/a.md", "docs/b.md", "docs/d.md"]);
  });
});

describe("withPorts", () => {
  const ports = { 4010: 50001, 4011: 50002, 4012: 50003 };

  it.each([
    [
      "the reference server's port becomes the run's",
      "curl http://127.0.0.1:4010/plants",
      "curl http://127.0.0.1:50001/plants",
    ],
    [
      "each of the docs' ports becomes the same port wherever it is written",
      "proxy --target http://127.0.0.1:4010 --port 4012; curl :4012; curl :4011",
      "proxy --target http://127.0.0.1:50001 --port 50003; curl :50003; curl :50002",
    ],
    ["a number that only contains a port is left as written", "echo 40100 14010", "echo 40100 14010"],
  ])("%s", (_, script, expected) => {
    expect(withPorts(script, ports)).toBe(expected);
  });

  it("leaves a port the run gave nothing as written", () => {
    expect(withPorts("curl :4011 :4010", { 4010: 1 })).toBe("curl :4011 :1");
  });
});

describe("normaliseOutput", () => {
  it("writes what changes between runs and machines as placeholders", () => {
    const real = [
      "spec /tmp/run-1/clone/spec/openapi.yaml, seed 1795488257855568462 (replay with --seed 1795488257855568462)   ",
      "[ 1/50] PASS  auth-empty-bearer (59 ms)",
      "findings: 0 failures, 0 beyond the contract, 14 notes; 1.65 s",
      "run: 2026-11-24T01:19:38.710Z against http://127.0.0.1:38211, seed 17, 1301 ms",
      '  curl -d \'{"id":1795483301313,"name":"Boston fern"}\' -H \'user-agent: curl/7.88.1\'',
      "certificate written (ed25519, key id 478ac25f3df39f3c) on Node v20.20.2 at [10:01:51 PM]",
      "contract: sha256 626416a78009d5f9ec8bd4eaafed9569265c7dab27ddb4d737be6ca29d3f0342",
      "",
    ].join("\n");
    expect(normaliseOutput(real, ["/tmp/run-1/clone"])).toBe(
      [
        "spec /path/to/plantstore-kit/spec/openapi.yaml, seed <seed> (replay with --seed <seed>)",
        "[ 1/50] PASS  auth-empty-bearer (<duration>)",
        "findings: 0 failures, 0 beyond the contract, 14 notes; <duration>",
        "run: <time> against http://127.0.0.1:<port>, seed <seed>, <duration>",
        '  curl -d \'{"id":<ms-time>,"name":"Boston fern"}\' -H \'user-agent: curl/<version>\'',
        "certificate written (ed25519, key id <key-id>) on Node <version> at [<time>]",
        "contract: sha256 <sha256>",
      ].join("\n"),
    );
  });

  it("keeps exact numbers that are the point of a line", () => {
    const line = '{"id":9223372036854775807,"name":"Cactus"} {"id":9007199254740993} 50 cases, 2 of 2 statuses';
    expect(normaliseOutput(line)).toBe(line);
  });
});

describe("outputProblem", () => {
  const real = "a\nb 12 ms\nc\nd\ne\n";

  it.each([
    ["the whole output", "a\nb 3 ms\nc\nd\ne"],
    ["a gap in the middle", "a\n...\ne"],
    ["a gap at the start", "...\nd\ne"],
    ["a gap at the end", "a\nb 1 ms\n..."],
    ["gaps around a middle part", "...\nc\nd\n..."],
    ["a gap standing for no line", "a\n...\nb 5 ms\nc\nd\ne"],
  ])("accepts %s", (_, shown) => {
    expect(outputProblem(shown, real)).toBeUndefined();
  });

  it.each([
    ["a changed line", "a\nb 3 ms\nX\nd\ne", /shown line 3 is not the real output's line 3:\n  shown: X\n  real:  c\n/],
    ["a line too few", "a\nb 3 ms\nc\nd", /more lines than shown, from its line 5: e\n/],
    [
      "a line too many",
      "a\nb 3 ms\nc\nd\ne\nf",
      /shown line 6 is not the real output's line 6:\n.*\n  real:  \(no such line\)/,
    ],
    ["a wrong end", "a\n...\nd", /shown line 3 is not the real output's line 5:\n  shown: d\n  real:  e\n/],
    ["an end that overlaps the start", "a\nb 1 ms\nc\n...\nc\nd\ne", /shown line 5 is not the real output's line 4/],
    ["lines out of order", "...\nd\nc\n...", /shown lines 2 to 3 are not in the real output after its line 0/],
    ["nothing shown", "", /nothing is shown/],
  ])("refuses %s, showing the real output", (_, shown, error) => {
    const problem = outputProblem(shown, real);
    expect(problem).toMatch(error);
    expect(problem).toContain("the real output (normalised):\na\nb <duration>\nc\nd\ne");
  });
});
