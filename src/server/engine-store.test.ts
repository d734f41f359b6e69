import { describe, expect, it } from "vitest";
import { Collection, ResourceStore } from "./engine-store.js";

describe("Collection", () => {
  it("keeps every key as the text it was given, whether held as a number or as text", () => {
    const c = new Collection();
    const keys = ["7", "07", "0", "00", "-1", "+1", "1.0", "1e3", "", " 7", "7 ", "abc", "٣"];
    keys.push("999999999999999", "1000000000000000", "9007199254740993", "12345678901234567890");
    for (const [i, key] of keys.entries()) c.set(key, i);
    expect(c.size).toBe(keys.length);
    expect([...c.entries()]).toEqual(keys.map((key, i) => [key, i]));
    for (const [i, key] of keys.entries()) {
      expect(c.has(key)).toBe(true);
      expect(c.get(key)).toBe(i);
    }
  });

  it("tells apart keys whose numbers are one but whose texts are not", () => {
    const c = new Collection();
    c.set("7", "seven");
    expect(c.get("07")).toBeUndefined();
    expect(c.has("7.0")).toBe(false);
    expect(c.get("+7")).toBeUndefined();
    // 2^53 + 1 and 2^53 are one double: as text they are two keys.
    c.set("9007199254740993", "a");
    expect(c.get("9007199254740992")).toBeUndefined();
  });

  it("replaces in place, deletes, and keeps the order made", () => {
    const c = new Collection();
    for (const key of ["3", "x", "1", "2"]) c.set(key, key);
    c.set("x", "X");
    expect(c.delete("1")).toBe(true);
    expect(c.delete("1")).toBe(false);
    expect(c.delete("01")).toBe(false);
    expect([...c.entries()]).toEqual([
      ["3", "3"],
      ["x", "X"],
      ["2", "2"],
    ]);
  });
});

describe("ResourceStore", () => {
  it("finds an item by the key it was made with, and snapshots and restores keys as text", () => {
    const store = new ResourceStore(10);
    const plants = store.collection("/plants", []);
    expect(store.insert(plants, "42", { id: 42 })).toBe("created");
    expect(store.insert(plants, "042", { id: "042" })).toBe("created");
    expect(store.insert(plants, "42", { id: 42 })).toBe("duplicate");
    expect(store.holding("/plants", "42")).toBe(plants);
    const snapshot = store.snapshot();
    expect(snapshot.collections[0]!.items).toEqual([
      ["42", { id: 42 }],
      ["042", { id: "042" }],
    ]);
    const restored = new ResourceStore(10);
    expect(restored.restore(snapshot)).toBe(true);
    expect(restored.existing("/plants", [])?.get("42")).toEqual({ id: 42 });
    expect(restored.itemsOf("/plants").map(([key]) => key)).toEqual(["42", "042"]);
  });
});
