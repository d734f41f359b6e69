/** An entry taken out: its place stays until the entries are compacted. */
const HOLE: unique symbol = Symbol("hole");
/** Holes allowed before the entries are compacted, at least; and never more than the live entries. */
const MIN_HOLES = 1024;
/** Each compacted array of entries, to the array its live entries went to (a walk follows them). */
const compactedInto = new WeakMap<unknown[], unknown[]>();

/**
 * One collection of the store: its items by id key, in the order they were made. Keys go in and come
 * out as text. A key that is a decimal integer of at most 15 digits, as the store writes them (no sign,
 * no leading zero), is found through a table of numbers (NumberIndex) rather than a Map: a Map of
 * ids past 2^30 (heap numbers) reads a heap object at every probe, about 550 ns a new id in a
 * collection of a million against 160 here (docs/performance.md). Other keys are in a Map.
 */
export class Collection {
  /** Each entry's item, or HOLE; entries are in the order made. */
  #items: unknown[] = [];
  /** Each entry's key as a number, NaN where it is text (then in #texts) or a hole. */
  #numbers = new Float64Array(16);
  #texts = new Map<number, string>();
  readonly #byNumber = new NumberIndex();
  readonly #byText = new Map<string, number>();
  #live = 0;

  get size(): number {
    return this.#live;
  }

  get(key: string): unknown {
    const at = this.#find(slotOf(key));
    return at < 0 ? undefined : this.#items[at];
  }

  has(key: string): boolean {
    return this.#find(slotOf(key)) >= 0;
  }

  /** The store's: puts an item unless the key is there; whether it did. */
  add(key: string, item: unknown): boolean {
    const slot = slotOf(key);
    if (this.#find(slot) >= 0) return false;
    this.#append(slot, item);
    return true;
  }

  /** The store's: puts an item, keeping its place when the key is there. */
  set(key: string, item: unknown): void {
    const slot = slotOf(key);
    const at = this.#find(slot);
    if (at >= 0) this.#items[at] = item;
    else this.#append(slot, item);
  }

  /** The store's: takes an item out; whether it was there. */
  delete(key: string): boolean {
    const slot = slotOf(key);
    const at = this.#find(slot);
    if (at < 0) return false;
    if (typeof slot === "number") this.#byNumber.remove(slot);
    else this.#byText.delete(slot);
    this.#items[at] = HOLE;
    this.#numbers[at] = NaN;
    this.#texts.delete(at);
    this.#live--;
    const holes = this.#items.length - this.#live;
    if (holes > MIN_HOLES && holes > this.#live) this.#compact();
    return true;
  }

  /**
   * Keys and items in the order made. As a Map's: an entry added while walking is reached, one taken
   * out before it is reached is not; the entries may be compacted meanwhile (the walk finds its place).
   */
  *entries(): Generator<[string, unknown]> {
    let items = this.#items;
    for (let at = 0; ; at++) {
      // Compacted since the last step (once or more): the place is the count of live entries before it.
      while (items !== this.#items) {
        let live = 0;
        for (let i = 0; i < at; i++) if (items[i] !== HOLE) live++;
        items = compactedInto.get(items)!;
        at = live;
      }
      if (at >= items.length) return;
      const item = items[at];
      if (item === HOLE) continue;
      const n = this.#numbers[at]!;
      yield [Number.isNaN(n) ? this.#texts.get(at)! : String(n), item];
    }
  }

  [Symbol.iterator](): Generator<[string, unknown]> {
    return this.entries();
  }

  *keys(): Generator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): Generator<unknown> {
    for (const [, item] of this.entries()) yield item;
  }

  #find(slot: string | number): number {
    return typeof slot === "number" ? this.#byNumber.find(slot) : (this.#byText.get(slot) ?? -1);
  }

  #append(slot: string | number, item: unknown): void {
    const at = this.#items.length;
    if (at === this.#numbers.length) {
      const grown = new Float64Array(at * 2);
      grown.set(this.#numbers);
      this.#numbers = grown;
    }
    this.#items.push(item);
    if (typeof slot === "number") {
      this.#numbers[at] = slot;
      this.#byNumber.put(slot, at);
    } else {
      this.#numbers[at] = NaN;
      this.#texts.set(at, slot);
      this.#byText.set(slot, at);
    }
    this.#live++;
  }

  /** Drops the holes: entries keep their order, the indexes are made again. */
  #compact(): void {
    const items = this.#items;
    const numbers = this.#numbers;
    const texts = this.#texts;
    this.#items = [];
    this.#numbers = new Float64Array(Math.max(16, this.#live * 2));
    this.#texts = new Map();
    this.#byNumber.clear();
    this.#byText.clear();
    this.#live = 0;
    compactedInto.set(items, this.#items);
    for (let at = 0; at < items.length; at++)
      if (items[at] !== HOLE) this.#append(Number.isNaN(numbers[at]!) ? texts.get(at)! : numbers[at]!, items[at]);
  }
}

/** A key as the collection holds it: a short canonical decimal integer as its number, else the text. */
export function slotOf(key: string): string | number {
  const length = key.length;
  if (length === 0 || length > 15) return key;
  const first = key.charCodeAt(0);
  // "0" alone is 0; "01", "+1", "-1", "1.0" stay text (String of their number is not them).
  if (first < 0x30 || first > 0x39 || (first === 0x30 && length > 1)) return key;
  let n = first - 0x30;
  for (let i = 1; i < length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return key;
    n = n * 10 + (c - 0x30);
  }
  return n;
}

const EMPTY = -1;
const GONE = -2;

/**
 * Entry positions by integer key (0 to 10^15), open addressing with linear probing: the keys are
 * doubles in a Float64Array, compared where they lie. At most half full, taken-out keys counted.
 */
class NumberIndex {
  #keys = new Float64Array(16);
  #at = new Int32Array(16).fill(EMPTY);
  #mask = 15;
  /** Places holding a key or a GONE mark. */
  #filled = 0;
  #live = 0;

  find(n: number): number {
    const keys = this.#keys;
    const at = this.#at;
    const mask = this.#mask;
    for (let i = hash(n) & mask; ; i = (i + 1) & mask) {
      const entry = at[i]!;
      if (entry === EMPTY) return -1;
      if (entry !== GONE && keys[i] === n) return entry;
    }
  }

  /** Puts a key that is not there. */
  put(n: number, entry: number): void {
    if ((this.#filled + 1) * 2 > this.#at.length) this.#rebuild();
    const mask = this.#mask;
    let i = hash(n) & mask;
    while (this.#at[i] !== EMPTY) i = (i + 1) & mask;
    this.#keys[i] = n;
    this.#at[i] = entry;
    this.#filled++;
    this.#live++;
  }

  remove(n: number): void {
    const mask = this.#mask;
    for (let i = hash(n) & mask; ; i = (i + 1) & mask) {
      const entry = this.#at[i]!;
      if (entry === EMPTY) return;
      if (entry !== GONE && this.#keys[i] === n) {
        this.#at[i] = GONE;
        this.#live--;
        return;
      }
    }
  }

  clear(): void {
    this.#keys = new Float64Array(16);
    this.#at = new Int32Array(16).fill(EMPTY);
    this.#mask = 15;
    this.#filled = 0;
    this.#live = 0;
  }

  /** Twice the room when more than a quarter is live, else the same room without the GONE marks. */
  #rebuild(): void {
    const keys = this.#keys;
    const at = this.#at;
    const size = this.#live * 4 > at.length ? at.length * 2 : at.length;
    this.#keys = new Float64Array(size);
    this.#at = new Int32Array(size).fill(EMPTY);
    this.#mask = size - 1;
    this.#filled = 0;
    this.#live = 0;
    for (let i = 0; i < at.length; i++) if (at[i]! >= 0) this.put(keys[i]!, at[i]!);
  }
}

/**
 * A well-spread 32-bit hash of an integer below 2^53: its low and high 32 bits mixed, then
 * MurmurHash3's finaliser (every bit of the key moves about half the bits of the hash, so keys that
 * differ only in high bits, multiples of 2^24 say, still spread over the table).
 */
function hash(n: number): number {
  let h = (n >>> 0) ^ Math.imul((n / 4294967296) >>> 0, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
