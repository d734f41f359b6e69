import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";
import { KIT_ROOT } from "../src/paths.js";
import { BENCH_TOKEN, startTarget, type Target } from "./targets.js";

// The Fastify anchor's two logs, as the bench starts them: in either, each answer leaves one "request
// completed" line in the target's log file, which the bench counts and removes. Nothing here times.
const create = async (t: Target, body: string): Promise<number> => {
  const res = await fetch(`${t.url}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" },
    body,
  });
  await res.arrayBuffer();
  return res.status;
};

for (const mode of ["line", "default"] as const)
  it(`the Fastify anchor with --log ${mode}: one "request completed" line an answer, in its log file`, async () => {
    const t = await startTarget({ label: mode, kind: "fastify", logging: true, fastifyLog: mode });
    let lines: number | undefined;
    try {
      expect(await create(t, '{"id":1,"name":"Fern"}')).toBe(200);
      expect(await create(t, '{"id":1,"name":"Fern"}')).toBe(409);
      expect(await create(t, '{"name":"No id"}')).toBe(400);
    } finally {
      lines = (await t.stop()).logLines;
    }
    // The three, and the bench's first answer (a create of `{}`) made when it started.
    expect(lines).toBe(4);
  });

it("the Fastify anchor refuses a log flag it does not know, and says how it is used", () => {
  const script = `${KIT_ROOT}/dist/bench/fastify-server.js`;
  let stderr = "";
  try {
    execFileSync(process.execPath, [script, "--log", "json", "x.log"], { stdio: "pipe" });
  } catch (error) {
    stderr = String((error as { stderr: Buffer }).stderr);
  }
  expect(stderr).toContain("usage: fastify-server.js [--log line|default FILE], not --log json x.log");
});
