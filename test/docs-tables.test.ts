import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KIT_ERRORS } from "../src/errors.js";
import { CHECKS } from "../src/harness/checks.js";
import { STATEFUL_CHECKS } from "../src/harness/stateful/checks.js";
import { LEVEL_SUMMARIES, LEVELS } from "../src/harness/levels.js";
import { KIT_ROOT } from "../src/paths.js";
import { ERROR_ANSWERS } from "../src/server/error-answers.js";

// The tables of docs/ that the code can state are checked against it, so they cannot drift: checks
// and levels in docs/checks-and-levels.md, error codes in docs/errors.md (as src/errors.test.ts did
// for the README's copy).

/** Rows of the Markdown tables of a doc whose first cell is a code span: the span -> the other cells, every occurrence. */
function rows(doc: string): Map<string, string[][]> {
  const text = readFileSync(join(KIT_ROOT, "docs", doc), "utf8");
  const out = new Map<string, string[][]>();
  for (const m of text.matchAll(/^\| `([^`]+)`[^|]*\|(.*)\|$/gm)) {
    const cells = (m[2] as string).split(" | ").map((c) => c.trim());
    out.set(m[1] as string, [...(out.get(m[1] as string) ?? []), cells]);
  }
  return out;
}

describe("docs/checks-and-levels.md states the code's checks and levels", () => {
  const table = rows("checks-and-levels.md");

  it.each([...CHECKS, ...STATEFUL_CHECKS].map((c) => [c.id, c.summary]))(
    "check %s: one row, its rule CHECKS[].summary",
    (id, summary) => {
      expect(table.get(id)?.map((cells) => cells[0])).toEqual([summary]);
    },
  );

  it.each(LEVELS.map((l) => [l, LEVEL_SUMMARIES[l]]))("level %s: one row, its rule LEVEL_SUMMARIES", (level, rule) => {
    expect(table.get(level)?.map((cells) => cells[0])).toEqual([rule]);
  });

  it("lists no check or level the code does not have", () => {
    const known = new Set<string>([...CHECKS.map((c) => c.id), ...STATEFUL_CHECKS.map((c) => c.id), ...LEVELS]);
    expect([...table.keys()].filter((k) => !known.has(k))).toEqual([]);
  });
});

describe("docs/errors.md states the code's error codes", () => {
  const table = rows("errors.md");

  it.each(Object.entries(ERROR_ANSWERS))("wire answer %s is listed once, with status %s", (code, { status }) => {
    expect(table.get(code)?.map((cells) => cells[0])).toEqual([String(status)]);
  });

  it.each(Object.entries(KIT_ERRORS))("kit error %s is listed once, with its meaning", (code, meaning) => {
    const listed = table.get(code) ?? [];
    expect(listed).toHaveLength(1);
    expect(listed[0]?.[0]).toContain(meaning);
  });

  it("lists no code the tables do not have", () => {
    const known = new Set([...Object.keys(ERROR_ANSWERS), ...Object.keys(KIT_ERRORS)]);
    expect([...table.keys()].filter((c) => c.startsWith("PS_") && !known.has(c))).toEqual([]);
  });
});
