import { join } from "node:path";
import { http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadContract } from "../contract/index.js";
import { KIT_ROOT } from "../paths.js";
import { DEV_TOKEN } from "./defaults.js";
import { createMockHandler, type MockHandler } from "./fetch-handler.js";

// What a frontend test suite does with a contract of its own: Mock Service Worker intercepts fetch
// and the mock engine answers, statefully, with no port anywhere.
let handler: MockHandler;
let mocks: ReturnType<typeof setupServer>;
beforeAll(async () => {
  const contract = await loadContract(join(KIT_ROOT, "test", "data", "multi-op", "plant-store-multi.yaml"));
  handler = createMockHandler({ contract });
  mocks = setupServer(http.all("http://api.test/*", ({ request }) => handler(request)));
  mocks.listen({ onUnhandledRequest: "error" });
});
afterAll(() => mocks?.close());

const auth = { authorization: `Bearer ${DEV_TOKEN}` };

describe("createMockHandler under Mock Service Worker (Node)", () => {
  it("creates, reads back exactly, lists, deletes, then answers the documented 404", async () => {
    const made = await fetch("http://api.test/plants", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: '{"id":9007199254740993,"name":"Fern","tag":"fern"}',
    });
    expect([made.status, await made.text()]).toEqual([200, '{"name":"Fern","tag":"fern"}']);
    const read = await fetch("http://api.test/plants/9007199254740993", { headers: auth });
    expect(await read.text()).toBe('{"name":"Fern","tag":"fern","id":9007199254740993}');
    const list = await fetch("http://api.test/plants?tags=fern", { headers: auth });
    expect(await list.text()).toBe('[{"name":"Fern","tag":"fern","id":9007199254740993}]');
    const gone = await fetch("http://api.test/plants/9007199254740993", {
      method: "DELETE",
      headers: { ...auth, "x-request-id": "00000000-0000-4000-8000-000000000001" },
    });
    expect(gone.status).toBe(204);
    const missing = await fetch("http://api.test/plants/9007199254740993", { headers: auth });
    expect([missing.status, missing.headers.get("content-type")]).toEqual([404, "application/problem+json"]);
    expect(handler.engine.store.size).toBe(0);
  });

  it("refuses a request without credentials, and one the contract refuses, as the server does", async () => {
    const anonymous = await fetch("http://api.test/plants");
    expect([anonymous.status, anonymous.headers.get("www-authenticate")]).toEqual([401, 'Bearer realm="plantstore"']);
    const bad = await fetch("http://api.test/plants?limit=500", { headers: auth });
    expect([bad.status, bad.headers.get("content-type")]).toEqual([400, "application/problem+json"]);
  });
});
