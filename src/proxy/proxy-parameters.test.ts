import { expect, it } from "vitest";
import { TOKEN } from "../../test/helpers.js";
import { multiOpContract, startMultiOpServer } from "../../test/multi-op-server.js";
import { startProxy } from "./start-proxy.js";

it("judges path, query and header parameters as the client's, and response headers as the server's", async () => {
  const contract = await multiOpContract();
  const server = await startMultiOpServer({ fault: "missing-rate-limit-header" });
  const proxy = await startProxy({ target: server.url, contract, port: 0 });
  try {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const create = await fetch(`${proxy.url}/plants`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: '{"id":9007199254740993,"name":"Fern"}',
    });
    expect(create.status).toBe(200);
    expect((await fetch(`${proxy.url}/plants?limit=0`, { headers: auth })).status).toBe(400);
    expect((await fetch(`${proxy.url}/plants/9007199254740993`, { headers: auth })).status).toBe(200);
    const { summary, exchanges } = await proxy.stop();
    const client = exchanges.flatMap((e) =>
      e.findings.filter((f) => f.side === "client").map((f) => [e.path, f.check]),
    );
    expect(client).toEqual([["/plants?limit=0", "request.parameter"]]);
    const server_ = exchanges.flatMap((e) =>
      e.findings.filter((f) => f.side === "server" && f.counts).map((f) => [e.path, f.check]),
    );
    // The faulty server leaves out the required X-Rate-Limit header of a read.
    expect(server_).toEqual([["/plants/9007199254740993", "response.headers"]]);
    expect(summary.exitCode).toBe(1);
  } finally {
    await proxy.stop();
    await server.close();
  }
});
