import { openApi } from "./openapi-doc.js";
import { compileContract } from "../src/contract/index.js";
import { createMockEngine } from "../src/server/mock-options.js";

export const ENGINE_TOKEN = "engine-of-token";

/**
 * The mock engine of a document's paths in process, for the engine's unit tests: a request in (a
 * string body as it is, another value as JSON), its status, headers and parsed body out.
 */
export function engineOf(paths: Record<string, unknown>, source = "engine-of.json") {
  const contract = compileContract(openApi(paths), source);
  const engine = createMockEngine(contract, { tokens: [ENGINE_TOKEN] });
  const send = (method: string, url: string, body?: unknown) => {
    const answer = engine.handle({
      method,
      url,
      headers: { authorization: `Bearer ${ENGINE_TOKEN}`, "content-type": "application/json", host: "mock.test" },
      body: new TextEncoder().encode(body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body)),
    });
    return {
      status: answer.status,
      headers: answer.headers,
      body: answer.body === "" ? undefined : JSON.parse(answer.body),
    };
  };
  return { engine, send, contract };
}
