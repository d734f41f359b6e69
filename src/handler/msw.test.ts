import { http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPlantStoreHandler, DEV_TOKEN } from "./index.js";
import { storedPlant } from "../../test/helpers.js";

// What a frontend test suite does: Mock Service Worker intercepts fetch and the handler answers,
// with no port anywhere.
const handler = createPlantStoreHandler({ admin: true });
const mocks = setupServer(http.all("http://plantstore.test/*", ({ request }) => handler(request)));
beforeAll(() => mocks.listen({ onUnhandledRequest: "error" }));
beforeEach(() => handler.store.clear());
afterAll(() => mocks.close());

const post = (body: string): Promise<Response> =>
  fetch("http://plantstore.test/plants", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${DEV_TOKEN}` },
    body,
  });

describe("the handler under Mock Service Worker (Node)", () => {
  it("creates a plant: 200 with the Plant, stored with its exact id", async () => {
    const res = await post('{"id":9007199254740993,"name":"Boston fern","tag":"fern"}');
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ name: "Boston fern", tag: "fern" });
    expect(storedPlant(handler.store, "9007199254740993")).toEqual({ name: "Boston fern", tag: "fern" });
    const list = await fetch("http://plantstore.test/__admin/plants", {
      headers: { authorization: `Bearer ${DEV_TOKEN}` },
    });
    expect(await list.text()).toBe('{"count":1,"plants":[{"id":9007199254740993,"name":"Boston fern","tag":"fern"}]}');
  });

  it("refuses an invalid body: 400 with the Error shape and its violations", async () => {
    const res = await post('{"id":"7","name":"a"}');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 400,
      message: expect.any(String),
      code: "PS_BODY_INVALID",
      violations: [{ location: "body/id", keyword: "type" }],
    });
    expect(handler.store.size).toBe(0);
  });

  it("answers without a token with 401 and WWW-Authenticate, and a preflight with a bodiless 204", async () => {
    const res = await fetch("http://plantstore.test/plants", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"id":1,"name":"a"}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="plantstore"');
    const preflight = await fetch("http://plantstore.test/plants", {
      method: "OPTIONS",
      headers: { origin: "http://app.test", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(await preflight.text()).toBe("");
  });
});
