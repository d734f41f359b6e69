import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonHeaders, kitContract, plantsIn, TOKEN } from "../../test/helpers.js";
import { tempDir } from "../../test/temp-dir.js";
import { KitError } from "../errors.js";
import type { MockOptions } from "./defaults.js";
import { createMockEngine } from "./mock-options.js";
import type { CoreRequest } from "./request.js";
import { dataText } from "./save-file.js";

const contract = await kitContract();
const req = (method: string, url: string, headers: Record<string, string> = jsonHeaders(), body = ""): CoreRequest => ({
  method,
  url,
  headers,
  body: Buffer.from(body),
});

const engineWith = (options: MockOptions = {}) =>
  createMockEngine(contract, { tokens: [TOKEN], corsOrigins: [], maxItems: 10, ...options });

describe("the admin surface", () => {
  it("is not there unless asked for", () => {
    const core = engineWith().handle;
    expect(core(req("GET", "/__admin/plants")).status).toBe(404);
  });

  it("lists the store with exact ids, empties it, and needs the token", () => {
    const { handle: core, store } = engineWith({ admin: true });
    expect(core(req("POST", "/plants", jsonHeaders(), '{"id":9223372036854775807,"name":"a","tag":"t"}')).status).toBe(
      200,
    );
    expect(core(req("POST", "/plants", jsonHeaders(), '{"id":-1,"name":"b"}')).status).toBe(200);
    const list = core(req("GET", "/__admin/plants"));
    expect(list.status).toBe(200);
    expect(list.body).toBe(
      '{"count":2,"plants":[{"id":-1,"name":"b"},{"id":9223372036854775807,"name":"a","tag":"t"}]}',
    );
    expect(core(req("GET", "/__admin/plants", {})).status).toBe(401);
    expect(core(req("PUT", "/__admin/plants")).headers.allow).toBe("GET, DELETE");
    expect(core(req("GET", "/__admin/other")).status).toBe(404);
    expect(JSON.parse(core(req("DELETE", "/__admin/plants")).body)).toEqual({ removed: 2 });
    expect(store.size).toBe(0);
    expect(core(req("POST", "/plants", jsonHeaders(), '{"id":-1,"name":"b"}')).status).toBe(200);
  });
});

describe("seed data", () => {
  const write = (text: string): string => {
    const file = join(tempDir("plantstore-data-"), "plants.json");
    writeFileSync(file, text);
    return file;
  };

  /** Seeds a new reference engine from a `--data` file, as `serve --data FILE` does. */
  const loadSeedData = (file: string) => {
    const engine = engineWith();
    engine.seed(dataText(file), file);
    return plantsIn(engine.store);
  };

  it("loads NewPlant objects with exact ids, keeping only the contract's fields", () => {
    const data = loadSeedData(write('[{"id":9007199254740993,"name":"a"},{"id":2,"name":"b","tag":"t","extra":1}]'));
    expect(data).toEqual([
      { id: "2", plant: { name: "b", tag: "t" } },
      { id: "9007199254740993", plant: { name: "a" } },
    ]);
  });

  it.each([
    ["{", "not valid JSON"],
    ['{"id":1}', "must be a JSON array"],
    ['[{"id":1,"name":"a"},{"id":"2","name":"b"}]', "item 1: [1]/id: must be an integer"],
    ['[{"id":1,"name":"a"},{"id":1.0,"name":"b"}]', "item 1: id 1 appears twice"],
  ])("refuses %j naming the file, item and field", (text, message) => {
    const file = write(text);
    let error: unknown;
    try {
      loadSeedData(file);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KitError);
    expect((error as KitError).code).toBe("PS_DATA_INVALID");
    expect((error as KitError).message).toContain(file);
    expect((error as KitError).message).toContain(message);
  });
});

describe("seed data errors at start-up", () => {
  it("refuses an unreadable file and more plants than --max-plants", async () => {
    const { startReferenceServer } = await import("./index.js");
    await expect(
      startReferenceServer({ contract, port: 0, dataFile: "/nonexistent/plants.json" }),
    ).rejects.toMatchObject({ code: "PS_FILE_UNREADABLE" });
    const file = join(tempDir("plantstore-data-"), "plants.json");
    writeFileSync(file, '[{"id":1,"name":"a"},{"id":2,"name":"b"}]');
    await expect(startReferenceServer({ contract, port: 0, dataFile: file, maxPlants: 1 })).rejects.toMatchObject({
      code: "PS_DATA_INVALID",
    });
  });
});
