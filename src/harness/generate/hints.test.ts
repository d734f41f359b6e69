import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileContract } from "../../contract/index.js";
import { openApi } from "../../../test/openapi-doc.js";
import { runConformance } from "../run.js";

// Two object branches nothing tells apart: an object meets both unless its values break one, which
// no value the generator draws from a branch does.
const doc = openApi({
  "/things": {
    post: {
      operationId: "makeThing",
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              oneOf: [
                { type: "object", properties: { name: { type: "string" } } },
                { type: "object", properties: { name: { type: "string" }, size: { type: "integer" } } },
              ],
            },
          },
        },
      },
      responses: { "204": { description: "made" }, "400": { description: "refused" } },
    },
  },
});

// A server that refuses every request: nothing valid can reach it anyway.
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(400).end());
});
let url = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("a document whose valid requests the generator cannot find", () => {
  it("says which schema may be why, as a linter would, with its pointer", async () => {
    const contract = compileContract(doc, "hints.yaml");
    const { results } = await runConformance({
      target: url,
      contract,
      noFixtures: true,
      generate: { count: 5 },
      seed: 4n,
    });
    const positive = results.find((r) => r.fixture.startsWith("generated-positive-"))!;
    expect(positive.outcome).toBe("error");
    expect(positive.error).toContain("cannot generate requests for this operation");
    expect(positive.error).toContain(
      "; the document may be why: nothing tells the object branches of oneOf apart: none has a required property",
    );
    expect(positive.error).toContain("(/paths/~1things/post/requestBody/content/application~1json/schema/oneOf)");
  });
});
