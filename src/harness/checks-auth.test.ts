import { describe, expect, it } from "vitest";
import { openApi } from "../../test/openapi-doc.js";
import { compileContract } from "../contract/index.js";
import type { Expectation } from "./case-types.js";
import { judge, type CheckContext } from "./checks.js";
import { classifier } from "./verdict.js";

// auth.rejected on every success, not only on 200: a request without valid credentials that gets any
// 2xx is counted, whichever 2xx the operation documents (the catalogue's faulty servers all answer 200).

const contract = compileContract(
  openApi(
    {
      "/plants": {
        post: {
          operationId: "plantIt",
          security: [{ bearer: [] }],
          responses: {
            "200": { description: "replaced" },
            "201": { description: "made" },
            "202": { description: "queued" },
            "204": { description: "done" },
            "401": { description: "no credentials" },
          },
        },
      },
    },
    { components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } } },
  ),
  "auth.yaml",
);
const operation = contract.operation("plantIt")!;

const answered = (status: number): CheckContext["result"] => ({
  ok: true,
  durationMs: 1,
  response: { status, headers: { "www-authenticate": "Bearer" }, body: Buffer.alloc(0) },
});
const unauthorised: Expectation = { kind: "unauthorised" };
/** The findings of a case without credentials answered `status`, as a run of the contract level counts them. */
const counted = (status: number): string[] => {
  const classify = classifier(undefined, ["contract"]);
  return judge({
    operation,
    specSource: "auth.yaml",
    expect: unauthorised,
    result: answered(status),
    earlierStatuses: [],
  })
    .map((f) => classify("auth-missing", f))
    .filter((f) => f.counts)
    .map((f) => `${f.severity} ${f.check}`);
};

describe("auth.rejected: a request without valid credentials never gets a 2xx", () => {
  it.each([200, 201, 202, 204])("a case without credentials answered %i is a counted auth.rejected failure", (s) => {
    expect(counted(s)).toEqual(["failure auth.rejected"]);
  });

  it("says the status it got and where the contract asks for credentials", () => {
    for (const status of [201, 204]) {
      const [f] = judge({
        operation,
        specSource: "auth.yaml",
        expect: unauthorised,
        result: answered(status),
        earlierStatuses: [],
      });
      expect(f).toMatchObject({
        check: "auth.rejected",
        message: `a request without valid credentials got ${status}`,
        rule: `auth.yaml#${operation.pointerOfSecurity}`,
      });
    }
  });

  it.each([401, 403, 400, 302])("a refusal or redirect (%i) is no auth.rejected finding", (s) => {
    expect(counted(s)).not.toContain("failure auth.rejected");
  });

  it("a valid case answered 201 or 204 is no auth.rejected finding", () => {
    for (const status of [201, 204])
      expect(
        judge({
          operation,
          specSource: "auth.yaml",
          expect: { kind: "valid" },
          result: answered(status),
          earlierStatuses: [],
        }).map((f) => f.check),
      ).not.toContain("auth.rejected");
  });
});
