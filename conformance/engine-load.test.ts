import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadContract, parseJsonExact } from "../src/contract/index.js";
import { KIT_ROOT } from "../src/paths.js";
import { DEV_TOKEN, startMockServer } from "../src/server/index.js";
import { spawnCli, stopSpawned, type Spawned } from "../test/process.js";
import { tempDir } from "../test/temp-dir.js";

// The mock engine under concurrent traffic over loopback, and killed while it saves: no acknowledged
// write is lost, no answer is a 5xx, and the --save file is always a whole store.
const SPEC = join(KIT_ROOT, "test", "data", "multi-op", "plant-store-multi.yaml");
const auth = { authorization: `Bearer ${DEV_TOKEN}` };
const idOf = (i: number): string => (9007199254740993n + BigInt(i) * 2n).toString();
let running: Spawned | undefined;
afterEach(async () => {
  await stopSpawned(running);
  running = undefined;
});

/** Runs `task` for 0..n-1, at most `width` at a time. */
async function bounded(n: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

describe("the mock engine under load", () => {
  it("concurrent creates and reads: every acknowledged create is read back exactly, no 5xx", async () => {
    const server = await startMockServer({ contract: await loadContract(SPEC), host: "127.0.0.1", port: 0 });
    try {
      const statuses: number[] = [];
      await bounded(400, 32, async (i) => {
        const made = await fetch(`${server.url}/plants`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: `{"id":${idOf(i)},"name":"Plant ${i}"}`,
        });
        statuses.push(made.status);
        await made.arrayBuffer();
        const read = await fetch(`${server.url}/plants/${idOf(i)}`, { headers: auth });
        statuses.push(read.status);
        expect(await read.text()).toBe(`{"name":"Plant ${i}","id":${idOf(i)}}`);
      });
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      expect(server.engine.store.size).toBe(400);
    } finally {
      await server.close();
    }
  }, 60_000);

  it("a kill during --save loses no acknowledged create: the snapshot is whole, the journal holds the rest", async () => {
    const save = join(tempDir("engine-kill-"), "store.json");
    running = spawnCli(["serve", "--spec", SPEC, "--port", "0", "--quiet", "--save", save]);
    const [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
    const acknowledged: string[] = [];
    const writes = bounded(300, 8, async (i) => {
      try {
        const made = await fetch(`${url}/plants`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: `{"id":${idOf(i)},"name":"Plant ${i}"}`,
        });
        if (made.status === 200) acknowledged.push(idOf(i));
        await made.arrayBuffer();
      } catch {
        // the server was killed: this create was never acknowledged
      }
    });
    // Killed once some creates are acknowledged, while others are in flight (and being saved).
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (acknowledged.length >= 50) {
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
    running.child.kill("SIGKILL");
    await running.exited;
    await writes;
    // The snapshot is whole; the changes since are in the journal, one line each.
    expect(parseJsonExact(readFileSync(save, "utf8")).ok).toBe(true);
    expect(existsSync(`${save}.journal`)).toBe(true);
    // Journalled before each answer went out: a restart from the files holds every acknowledged create.
    running = spawnCli(["serve", "--spec", SPEC, "--port", "0", "--quiet", "--admin", "--save", save]);
    const [, again] = await running.waitFor(/listening on (http:\/\/\S+)/);
    const text = await (await fetch(`${again}/__admin/store`, { headers: auth })).text();
    const saved = acknowledged.filter((id) => text.includes(`"id":${id},`) || text.includes(`"id":${id}}`));
    expect(acknowledged.length).toBeGreaterThanOrEqual(50);
    expect(saved).toEqual(acknowledged);
  }, 60_000);
});
