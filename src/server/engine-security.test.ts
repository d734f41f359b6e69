import { describe, expect, it } from "vitest";
import { openApi } from "../../test/openapi-doc.js";
import { compileContract } from "../contract/index.js";
import { createMockEngine } from "./mock-options.js";

// The mock engine's security requirements: any one alternative lets a request through, and every
// scheme of that alternative must hold (an API key AND a bearer token is both, never either).

const TOKEN = "security-token";
const KEY = "security-key";

const engine = createMockEngine(
  compileContract(
    openApi(
      {
        "/both": {
          get: {
            operationId: "both",
            security: [{ apiKey: [], bearer: [] }],
            responses: { "200": { description: "ok" } },
          },
        },
        "/either": {
          get: {
            operationId: "either",
            security: [{ apiKey: [] }, { bearer: [] }],
            responses: { "200": { description: "ok" } },
          },
        },
      },
      {
        components: {
          securitySchemes: {
            apiKey: { type: "apiKey", name: "X-Api-Key", in: "header" },
            bearer: { type: "http", scheme: "bearer" },
          },
        },
      },
    ),
    "security.json",
  ),
  { tokens: [TOKEN, KEY] },
);

/** The status of a GET of `path` with these headers, and why it was refused (the 401's message). */
const get = (path: string, headers: Record<string, string>) => {
  const answer = engine.handle({ method: "GET", url: path, headers, body: new Uint8Array() });
  return { status: answer.status, message: answer.status === 401 ? String(JSON.parse(answer.body).message) : "" };
};
const key = { "x-api-key": KEY };
const bearer = { authorization: `Bearer ${TOKEN}` };

describe("a security requirement of two schemes (an API key and a bearer token)", () => {
  it("lets a request with both through", () => {
    expect(get("/both", { ...key, ...bearer }).status).toBe(200);
  });

  it.each([
    ["only the API key", key, "Authorization: Bearer <token>"],
    ["only the bearer token", bearer, "X-Api-Key: <API key>"],
  ])("refuses a request with %s with 401, naming the one missing", (_name, headers, missing) => {
    const refused = get("/both", headers);
    expect(refused.status).toBe(401);
    expect(refused.message).toContain(missing);
  });

  it("refuses a request with neither, naming both", () => {
    const refused = get("/both", {});
    expect(refused.status).toBe(401);
    expect(refused.message).toContain('the header "X-Api-Key: <API key>" (apiKey) and the header "Authorization');
  });

  it("refuses a request whose second credential is wrong", () => {
    expect(get("/both", { ...key, authorization: "Bearer not-the-token" }).status).toBe(401);
    expect(get("/both", { "x-api-key": "not-the-key", ...bearer }).status).toBe(401);
  });
});

describe("two alternatives of one scheme each", () => {
  it("let a request with either through, and refuse one with neither", () => {
    expect(get("/either", key).status).toBe(200);
    expect(get("/either", bearer).status).toBe(200);
    expect(get("/either", {}).status).toBe(401);
  });
});
