import { describe, expect, it } from "vitest";
import { Collection } from "./collection.js";

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

describe("Collection against an ordered list of pairs", () => {
  // The model: [key, item] pairs in the order made, found by walking the list.
  class Pairs {
    readonly pairs: [string, unknown][] = [];
    find = (key: string): number => this.pairs.findIndex(([k]) => k === key);
    add(key: string, item: unknown): boolean {
      if (this.find(key) >= 0) return false;
      this.pairs.push([key, item]);
      return true;
    }
    set(key: string, item: unknown): void {
      const at = this.find(key);
      if (at >= 0) this.pairs[at]![1] = item;
      else this.pairs.push([key, item]);
    }
    delete(key: string): boolean {
      const at = this.find(key);
      if (at < 0) return false;
      this.pairs.splice(at, 1);
      return true;
    }
  }

  it("agrees on 40,000 random adds, sets, deletes and reads, through compactions and regrowth", () => {
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    // Small and past-2^30 integers, 15 and 16 digits, text that looks like a number, and text.
    const keyOf = (): string => {
      const n = next(3000);
      switch (next(8)) {
        case 0:
          return String(n);
        case 1:
        case 2:
          return String(1_000_000_000_000 + n);
        case 3:
          return String(100_000_000_000_000 + n);
        case 4:
          return String(1_000_000_000_000_000 + n);
        case 5:
          return `0${n}`;
        case 6:
          return `plant-${n}`;
        default:
          return String(-n);
      }
    };
    const c = new Collection();
    const model = new Pairs();
    for (let i = 0; i < 40_000; i++) {
      const key = keyOf();
      const op = next(10);
      // Deletes outnumber adds in the middle third: the entries are compacted, the tables rebuilt.
      const deleting = i > 13_000 && i < 26_000 ? op < 6 : op < 2;
      if (deleting) expect(c.delete(key)).toBe(model.delete(key));
      else if (op < 7) expect(c.add(key, i)).toBe(model.add(key, i));
      else if (op < 8) {
        c.set(key, i);
        model.set(key, i);
      } else {
        const at = model.find(key);
        expect(c.has(key)).toBe(at >= 0);
        expect(c.get(key)).toBe(at >= 0 ? model.pairs[at]![1] : undefined);
      }
      if (i % 2_000 === 0) {
        expect(c.size).toBe(model.pairs.length);
        expect([...c.entries()]).toEqual(model.pairs);
      }
    }
    expect([...c.entries()]).toEqual(model.pairs);
  });
});
