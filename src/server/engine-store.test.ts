import { describe, expect, it } from "vitest";
import { ResourceStore } from "./engine-store.js";

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

  it("restores a key given twice (a file edited by hand) once, with its last item", () => {
    const store = new ResourceStore(10);
    const snapshot = {
      version: 1,
      next: "0",
      collections: [
        {
          resource: "/plants",
          parents: [],
          items: [
            ["7", { v: 1 }],
            ["7", { v: 2 }],
            ["8", {}],
          ],
        },
      ],
    };
    expect(store.restore(snapshot)).toBe(true);
    expect(store.size).toBe(2);
    expect(store.existing("/plants", [])?.get("7")).toEqual({ v: 2 });
  });
});
