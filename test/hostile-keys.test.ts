// Hostile member names and depths, drawn by fast-check, through every place the kit parses a JSON
// body: the mock engine (the HTTP server's and the fetch handler's core), the fetch handler itself,
// the contract's request check (the proxy judges requests with it) and the harness's exact parser.
// Each must refuse or keep exactly what was sent: never a 500, never a member taken for a prototype,
// never a value the contract refuses stored or served, never a change to Object.prototype.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkRequest, compileContract, readExactJson } from "../src/contract/index.js";
import { createMockEngine, createMockHandler } from "../src/server/index.js";
import { openApi } from "./openapi-doc.js";

const TOKEN = "hostile-keys-token";
const HOSTILE = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "tag", "x"];

/** A thing with a closed `tag` enum and an open `extra` object: where a smuggled value would show. */
const thing = {
  type: "object",
  required: ["name"],
  properties: {
    id: { type: "integer", format: "int64", readOnly: true },
    name: { type: "string" },
    tag: { type: "string", enum: ["a", "b"] },
    extra: { type: "object" },
  },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const idParam = { name: "id", in: "path", required: true, schema: { type: "integer", format: "int64" } };
const contract = compileContract(
  openApi({
    "/things": {
      post: { operationId: "make", requestBody: { required: true, ...json(thing) }, responses: { "201": json(thing) } },
    },
    "/things/{id}": {
      parameters: [idParam],
      get: { operationId: "read", responses: { "200": json(thing), "404": { description: "none" } } },
    },
  }),
  "hostile.json",
);

/** JSON text of nested objects whose member names are hostile, with a number beyond 2^53 among the leaves. */
const hostileValue: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom('"v"', "9007199254740993", "1.00000000000000001", "null", '"a"'),
    fc
      .array(fc.tuple(fc.constantFrom(...HOSTILE), tie("value")), { maxLength: 4 })
      .map((members) => `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`),
    fc.array(tie("value"), { maxLength: 3 }).map((items) => `[${items.join(",")}]`),
  ),
})).value;

/** A create body: a name, maybe a top-level hostile member, and the hostile value in `extra` or at the top. */
const hostileBody = fc
  .tuple(fc.constantFrom(...HOSTILE), hostileValue, fc.boolean())
  .map(([key, value, top]) =>
    top ? `{"name":"n",${JSON.stringify(key)}:${value}}` : `{"name":"n","extra":{${JSON.stringify(key)}:${value}}}`,
  );

const untouched = (): void => {
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(({} as Record<string, unknown>).tag).toBeUndefined();
};

describe("hostile member names and depths", () => {
  it("the engine refuses or stores exactly what the contract allows, never a 500, never a smuggled value", () => {
    const engine = createMockEngine(contract, { tokens: [TOKEN] });
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    fc.assert(
      fc.property(hostileBody, (text) => {
        const made = engine.handle({ method: "POST", url: "/things", headers, body: new TextEncoder().encode(text) });
        expect([201, 400]).toContain(made.status);
        const accepted = checkRequest(contract.operation("make")!, { headers, body: new TextEncoder().encode(text) });
        expect(made.status === 201).toBe(accepted.ok);
        if (made.status === 201) {
          const id = (readExactJson(made.body)?.value as { id: unknown }).id;
          const read = engine.handle({ method: "GET", url: `/things/${String(id)}`, headers, body: new Uint8Array() });
          expect(read.status).toBe(200);
          const served = readExactJson(read.body)?.value as Record<string, unknown>;
          // Nothing but what was sent (and the id): a `tag` only as sent, inside the enum.
          const sent = readExactJson(text)?.value as Record<string, unknown>;
          expect(Object.keys(served).every((k) => k === "id" || Object.hasOwn(sent, k))).toBe(true);
          if (Object.hasOwn(served, "tag")) expect(served.tag).toEqual(sent.tag);
          expect(Object.getPrototypeOf(served)).toBe(Object.prototype);
        }
        untouched();
      }),
      { numRuns: 300, seed: 31 },
    );
  });

  it("the fetch handler answers the same, never a 500", async () => {
    const handler = createMockHandler({ contract, tokens: [TOKEN] });
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    await fc.assert(
      fc.asyncProperty(hostileBody, async (text) => {
        const answer = await handler(new Request("http://mock.test/things", { method: "POST", headers, body: text }));
        expect([201, 400]).toContain(answer.status);
        untouched();
      }),
      { numRuns: 100, seed: 32 },
    );
  });

  it("the harness's exact parser keeps every member a member, at any depth, without recursion", () => {
    fc.assert(
      fc.property(hostileValue, fc.integer({ min: 0, max: 3_000 }), (text, depth) => {
        const nested = `${'{"__proto__":'.repeat(depth)}${text}${"}".repeat(depth)}`;
        const parsed = readExactJson(nested)?.value as Record<string, unknown> | undefined;
        let node: unknown = parsed;
        for (let i = 0; i < depth; i++) {
          expect(Object.getPrototypeOf(node)).toBe(Object.prototype);
          expect(Object.keys(node as object)).toEqual(["__proto__"]);
          node = (node as Record<string, unknown>)["__proto__"];
        }
        untouched();
      }),
      { numRuns: 200, seed: 33 },
    );
  });
});
