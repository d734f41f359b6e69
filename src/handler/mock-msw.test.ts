import { http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MULTI_OP_SERVED, multiOpDocument, scenarioAnswer, walkScenario } from "../../test/mock-scenario.js";
import { createMockHandler, type MockHandler } from "./index.js";

// createMockHandler from the browser-safe entry, given the multi-operation document as a plain object
// (as a page gets it), under Mock Service Worker in Node: the walk test/mock-handler-browser.test.ts
// repeats in a real browser, with the same answers expected.
let document: Record<string, unknown>;
let handler: MockHandler | undefined;
const mocks = setupServer(
  http.all("http://api.test/*", ({ request }) => {
    if (handler === undefined) throw new Error("no handler yet");
    return handler(request);
  }),
);
beforeAll(async () => {
  document = await multiOpDocument();
  mocks.listen({ onUnhandledRequest: "error" });
});
afterAll(() => mocks.close());

describe("createMockHandler for the multi-operation spec under Mock Service Worker (Node)", () => {
  it("serves every operation from the resource model", () => {
    handler = createMockHandler({ document });
    const served = handler.engine.served.map(
      (s) => `${s.operation.method.toUpperCase()} ${s.operation.pathTemplate} ${s.served}`,
    );
    expect(served).toEqual(MULTI_OP_SERVED);
  });

  it("creates, reads exactly, lists with limit, replaces, deletes, and refuses as documented", async () => {
    handler = createMockHandler({ document });
    await walkScenario(async ({ method, path, headers, body }) =>
      scenarioAnswer(await fetch(`http://api.test${path}`, { method, headers, body })),
    );
    // The palm and the cactus: the deleted fern and the refused create are not in the store.
    expect(handler.engine.store.size).toBe(2);
  });
});
