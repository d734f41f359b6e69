import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KIT_ERRORS, KitError } from "./errors.js";
import { KIT_ROOT } from "./paths.js";
import { ERROR_ANSWERS, errorAnswer } from "./server/error-answers.js";

const readme = readFileSync(join(KIT_ROOT, "docs", "errors.md"), "utf8");
/** Rows of README tables whose first cell is a `PS_...` code: code -> the other cells. */
const readmeRows = new Map(
  [...readme.matchAll(/^\| `(PS_[A-Z0-9_]+)` \|(.*)\|$/gm)].map((m) => [
    m[1] as string,
    (m[2] as string).split("|").map((c) => c.trim()),
  ]),
);

describe("error tables match docs/errors.md", () => {
  it.each(Object.entries(ERROR_ANSWERS))("wire answer %s is listed with status %s", (code, { status }) => {
    expect(readmeRows.get(code)?.[0]).toBe(String(status));
  });

  it.each(Object.entries(KIT_ERRORS))("kit error %s is listed", (code, message) => {
    expect(readmeRows.get(code)?.[0]).toContain(message);
  });

  it("docs/errors.md lists no code the tables do not have", () => {
    const known = new Set([...Object.keys(ERROR_ANSWERS), ...Object.keys(KIT_ERRORS)]);
    expect([...readmeRows.keys()].filter((c) => !known.has(c))).toEqual([]);
  });
});

describe("error values", () => {
  it("every wire answer has the contract's Error shape with error equal to the status", () => {
    for (const [code, { status }] of Object.entries(ERROR_ANSWERS)) {
      const body = JSON.parse(errorAnswer(code as keyof typeof ERROR_ANSWERS, "detail").body);
      expect(body).toMatchObject({ error: status, code });
      expect(body.message).toMatch(/: detail$/);
    }
  });

  it("KitError carries its code and a message with the detail", () => {
    const e = new KitError("PS_SPEC_INVALID", "spec.yaml: bad");
    expect(e.code).toBe("PS_SPEC_INVALID");
    expect(e.message).toBe("the OpenAPI document is not valid OpenAPI 3.0 or 3.1: spec.yaml: bad");
  });
});
