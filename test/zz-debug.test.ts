import { writeFileSync } from "node:fs";
import { it } from "vitest";
import { loadContract } from "../src/contract/index.js";
import { startMockServer } from "../src/server/index.js";
import { serverUuidId } from "./conventions/server-uuid-id.js";
import { client, CONVENTION_TOKEN } from "./conventions/kit.js";
it("debug", async () => {
  writeFileSync("/tmp/uu.json", JSON.stringify(serverUuidId.document));
  const server = await startMockServer({ contract: await loadContract("/tmp/uu.json"), port: 0, tokens: [CONVENTION_TOKEN] });
  const send = client(server.url, CONVENTION_TOKEN);
  const r = await send("POST", "/notes", { text: "a", pinned: true });
  console.log(r.status, r.text);
  const id = (r.json as any).id;
  const p = await send("PATCH", `/notes/${id}`, { text: "b" }, { "content-type": "application/merge-patch+json" });
  console.log(p.status, p.text);
  await server.close(10);
});
