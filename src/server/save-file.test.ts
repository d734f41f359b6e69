import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { kitContract, TOKEN } from "../../test/helpers.js";
import { tempDir } from "../../test/temp-dir.js";
import { createMockEngine } from "./mock-options.js";
import { openJournal, replayJournal, type Journal } from "./save-file.js";

const contract = await kitContract();
const dir = tempDir("save-file-");
const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const opened: Journal[] = [];
afterEach(async () => {
  for (const j of opened.splice(0)) await j.close();
});

/** An engine of the Plant Store whose store is journalled to `file` (as `serve --save` does). */
function journalled(file: string, compactAfter?: number) {
  const engine = createMockEngine(contract, { tokens: [TOKEN] });
  const journal = openJournal(file, engine, { fsync: false, ...(compactAfter === undefined ? {} : { compactAfter }) });
  opened.push(journal);
  const create = (id: string, name: string) =>
    engine.handle({
      method: "POST",
      url: "/plants",
      headers,
      body: new TextEncoder().encode(`{"id":${id},"name":"${name}"}`),
    });
  return { engine, journal, create };
}

/** A fresh engine started as a restart would be: the snapshot, then the journal. */
function restarted(file: string) {
  const engine = createMockEngine(contract, { tokens: [TOKEN] });
  if (existsSync(file)) engine.restore(readFileSync(file, "utf8"), file);
  const replayed = replayJournal(file, engine.store);
  return { engine, replayed };
}

describe("the --save journal", () => {
  it("writes each change as one line before the answer, and a restart without a clean stop loses none", () => {
    const file = join(dir, "kill.json");
    const { engine, create } = journalled(file);
    for (const [id, name] of [
      ["9007199254740993", "a"],
      ["2", "b"],
      ["3", "c"],
    ])
      expect(create(id!, name!).status).toBe(200);
    engine.store.clearResource(engine.store.entries()[0]!.resource);
    expect(create("4", "d").status).toBe(200);
    // No close, no compaction: as after kill -9. The snapshot is the empty store of the start.
    expect(readFileSync(`${file}.journal`, "utf8").trim().split("\n")).toHaveLength(5);
    const { engine: again, replayed } = restarted(file);
    expect(replayed).toBe(5);
    expect(again.snapshot()).toBe(engine.snapshot());
    expect(again.snapshot()).toContain('"4"');
  });

  it("ignores a last line cut short, and names a bad line before it", () => {
    const file = join(dir, "torn.json");
    const { engine, create } = journalled(file);
    expect(create("1", "a").status).toBe(200);
    const whole = engine.snapshot();
    appendFileSync(`${file}.journal`, '{"op":"put","collection":"[\\"/pla');
    expect(restarted(file).engine.snapshot()).toBe(whole);
    writeFileSync(`${file}.journal`, `not a change\n${readFileSync(`${file}.journal`, "utf8")}`);
    expect(() => restarted(file)).toThrow(/torn\.json\.journal: line 1 is not a change this mock wrote/);
  });

  it("folds the journal into the snapshot in the background, and a restart at any moment is the same store", async () => {
    const file = join(dir, "compact.json");
    const { engine, journal, create } = journalled(file, 10);
    for (let i = 1; i <= 25; i++) expect(create(String(i), `p${i}`).status).toBe(200);
    // At the 10th change the journal was set aside and a fold began; it has not run yet (no turn of
    // the event loop since): a restart now reads the old snapshot, the set-aside journal, the new one.
    expect(readFileSync(`${file}.journal.1`, "utf8").trim().split("\n")).toHaveLength(10);
    expect(readFileSync(`${file}.journal`, "utf8").trim().split("\n")).toHaveLength(15);
    expect(restarted(file).engine.snapshot()).toBe(engine.snapshot());
    // The fold done: the snapshot holds the first 10, the set-aside journal is gone.
    await journal.compact();
    expect(existsSync(`${file}.journal.1`)).toBe(false);
    expect(JSON.parse(readFileSync(file, "utf8")).collections[0].items).toHaveLength(10);
    const { engine: again, replayed } = restarted(file);
    expect(replayed).toBe(15);
    expect(again.snapshot()).toBe(engine.snapshot());
  });

  it("keeps every change when folds fail (a full disk), and folds them all once it can", async () => {
    const file = join(dir, "failing.json");
    const { engine, journal, create } = journalled(file);
    // The temporary files of the next two folds cannot be written: a folder stands at each path.
    for (const n of [1, 2]) mkdirSync(`${file}.${process.pid}.${n}.tmp`);
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      expect([create("1", "a").status, create("2", "b").status]).toEqual([200, 200]);
      await journal.compact();
      expect(create("3", "c").status).toBe(200);
      await journal.compact();
      expect(errors).toHaveBeenCalledTimes(2);
    } finally {
      errors.mockRestore();
    }
    const { engine: again } = restarted(file);
    expect(again.snapshot()).toBe(engine.snapshot());
    expect(again.store.size).toBe(3);
    await journal.close();
    expect(readFileSync(file, "utf8")).toBe(engine.snapshot());
    expect([existsSync(`${file}.journal`), existsSync(`${file}.journal.1`)]).toEqual([false, false]);
  });

  it("leaves one file after a clean stop: the snapshot, every change folded in", async () => {
    const file = join(dir, "stop.json");
    const { engine, journal, create } = journalled(file);
    expect(create("9007199254740993", "a").status).toBe(200);
    await journal.close();
    expect(existsSync(`${file}.journal`)).toBe(false);
    expect(readFileSync(file, "utf8")).toBe(engine.snapshot());
  });
});
