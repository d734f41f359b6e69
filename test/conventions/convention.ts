// What a convention of the set is: an OpenAPI document in the shape of a family of real APIs, the
// promises that family's own documentation makes (written by hand, never derived from the kit's
// resource model), and a small hand-written server that keeps them. The checker (check.ts) holds a
// server to the promises; test/conventions.test.ts holds it to the reference servers, Prism and the
// kit's mock.
import type { Answer, Client, Request } from "./kit.js";

/** A broken promise: what was seen against what the promise says. */
export class Broken extends Error {}

/** Fails the promise unless `ok`, saying what was seen. */
export function expectThat(ok: boolean, seen: string): asserts ok {
  if (!ok) throw new Broken(seen);
}

/** One promise: a short sequence of requests and what their answers must show. */
export interface Promised {
  /** Stable, kebab-case: `duplicate-id-409`. */
  readonly id: string;
  /** The promise in words, with the section of the source it comes from. */
  readonly says: string;
  /** Throws Broken (or any error: no usable answer) when the server breaks it. `fresh` gives unique numbers. */
  readonly check: (send: Client, fresh: () => number) => Promise<void>;
}

export interface Convention {
  /** Kebab-case, unique: `client-integer-id`. */
  readonly name: string;
  /** The family of real APIs whose shape the document has. */
  readonly family: string;
  /** Where the promises are written: documentation pages, RFC sections. */
  readonly sources: readonly string[];
  /** The OpenAPI 3.0 or 3.1 document, bearer auth (kit.ts CONVENTION_TOKEN) on every operation. */
  readonly document: Record<string, unknown>;
  /** A fresh hand-written reference server that keeps every promise. */
  readonly reference: () => (request: Omit<Request, "params">) => Answer;
  readonly promises: readonly Promised[];
}
