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

describe("Collection walked while it changes", () => {
  it("walks as a Map does (ECMAScript's rule), through compactions mid-walk", () => {
    let seed = 11;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 4; round++) {
      const c = new Collection();
      const map = new Map<string, unknown>();
      for (let i = 0; i < 5_000; i++) {
        const key = next(2) === 0 ? String(1_000_000_000_000 + i) : `k${i}`;
        c.add(key, i);
        map.set(key, i);
      }
      const walk = c.entries();
      const oracle = map.entries();
      const keys = [...map.keys()];
      for (let step = 0; ; step++) {
        const a = walk.next();
        const b = oracle.next();
        expect(a).toEqual(b);
        if (b.done === true) break;
        // Mostly deletes (compactions follow), some adds, replaces and re-adds of deleted keys.
        for (let k = 0; k < 3; k++) {
          const key = keys[next(keys.length)]!;
          const op = next(10);
          if (op < 7) expect(c.delete(key)).toBe(map.delete(key));
          else if (op < 8) {
            c.set(key, -step);
            map.set(key, -step);
          } else {
            const added = `new${round}-${step}-${k}`;
            c.add(added, step);
            map.set(added, step);
            keys.push(added);
          }
        }
      }
      expect([...c]).toEqual([...map]);
      expect([...c.keys()]).toEqual([...map.keys()]);
      expect([...c.values()]).toEqual([...map.values()]);
    }
  });
});

describe("Collection walked across two compactions between steps", () => {
  it("finds its place again, as a Map's walk does", () => {
    const c = new Collection();
    const map = new Map<string, unknown>();
    for (let i = 0; i < 5_000; i++) {
      c.add(String(i + 1), i);
      map.set(String(i + 1), i);
    }
    const walk = c.entries();
    const oracle = map.entries();
    for (let i = 0; i < 10; i++) expect(walk.next()).toEqual(oracle.next());
    // 2,600 deletes compact once (holes past the live entries), 1,300 more compact again.
    for (let i = 3; i <= 3_902; i++) {
      c.delete(String(i));
      map.delete(String(i));
    }
    c.set("5", "five");
    map.set("5", "five");
    c.add("late", 1);
    map.set("late", 1);
    expect([...walk]).toEqual([...oracle]);
  });
});
