/**
 * Values made fresh for each run, so the suite can run again and again against the same stateful
 * server without colliding with its own earlier ids, yet replay exactly from a seed.
 */
import { INT64_MAX, INT64_MIN, TWO_53 } from "../contract/index.js";

export const FRESH_KINDS = ["int64", "int64-big", "int64-negative", "int64-big-negative", "string"] as const;
export type FreshKind = (typeof FRESH_KINDS)[number];

const MASK64 = (1n << 64n) - 1n;

/** splitmix64: small, fast, and the same sequence on every platform for a seed. */
export class Random {
  #state: bigint;

  constructor(seed: bigint) {
    this.#state = BigInt.asUintN(64, seed);
  }

  /** A uniformly distributed 64-bit unsigned integer. */
  next64(): bigint {
    this.#state = (this.#state + 0x9e3779b97f4a7c15n) & MASK64;
    let z = this.#state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    return z ^ (z >> 31n);
  }

  /** An integer in [min, max], both inclusive. */
  between(min: bigint, max: bigint): bigint {
    return min + (this.next64() % (max - min + 1n));
  }

  /** Where the sequence is now; `restore` goes back there (a draw replayed gives the same values). */
  checkpoint(): () => void {
    const state = this.#state;
    return () => {
      this.#state = state;
    };
  }

  hex(bytes: number): string {
    let out = "";
    while (out.length < bytes * 2) out += this.next64().toString(16).padStart(16, "0");
    return out.slice(0, bytes * 2);
  }
}

/** Makes one fresh value of a kind. Ids are drawn from 2^53 values or more, so runs do not collide. */
export function freshValue(kind: FreshKind, random: Random): bigint | string {
  switch (kind) {
    case "int64":
      // Within 2^53, so that ordinary cases test one thing each; int64-big covers the rest.
      return random.between(1n, TWO_53 - 1n);
    case "int64-big":
      return random.between(TWO_53 + 1n, INT64_MAX);
    case "int64-negative":
      return random.between(-(TWO_53 - 1n), -1n);
    case "int64-big-negative":
      return random.between(INT64_MIN, -(TWO_53 + 1n));
    case "string":
      return `fresh-${random.hex(8)}`;
  }
}

/** A seed from the clock and the process, when the user gives none. */
export function randomSeed(): bigint {
  return BigInt(Date.now()) * 1_000_003n + BigInt(process.pid) + BigInt(Math.floor(Math.random() * 2 ** 32));
}
