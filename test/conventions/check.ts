// The checker of the convention set: each promise of a convention run in turn against a server, its
// outcome kept (a server that answers nothing usable breaks the promise too). Independent of the
// kit's src/: it reads only the convention and what the server answers.
import type { Convention } from "./convention.js";
import { client } from "./kit.js";
import { CONVENTION_TOKEN } from "./kit.js";

/** A promise's outcome: kept, or broken with what was seen. */
export interface Outcome {
  readonly promise: string;
  readonly broken?: string;
}

/**
 * The last number `fresh` gave, in this process. Never given twice: a promise's ids and names never
 * meet another promise's items, nor those an earlier check left in the same store or in the store a
 * server was restarted (--save) or seeded (--data) from. (A random start per check met the earlier
 * check's items one time in a thousand.)
 */
let counter = 1000;

/** Holds the server at `base` to every promise of the convention, in order. */
export async function checkConvention(convention: Convention, base: string): Promise<Outcome[]> {
  const send = client(base, CONVENTION_TOKEN);
  const fresh = (): number => ++counter;
  const out: Outcome[] = [];
  for (const p of convention.promises) {
    try {
      await p.check(send, fresh);
      out.push({ promise: p.id });
    } catch (error) {
      out.push({ promise: p.id, broken: error instanceof Error ? error.message : String(error) });
    }
  }
  return out;
}

/** The ids of the broken promises, sorted. */
export const brokenIds = (outcomes: readonly Outcome[]): string[] =>
  outcomes
    .filter((o) => o.broken !== undefined)
    .map((o) => o.promise)
    .sort();
