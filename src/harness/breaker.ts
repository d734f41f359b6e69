import type { ExchangeResult } from "./http-client.js";

/**
 * "The target stopped answering": after `limit` exchanges in a row end in a timeout, the breaker
 * opens and the rest of the run is not sent, so a target that accepts connections and never answers
 * ends a run in about limit x timeout instead of cases x timeout. One breaker is shared by every case
 * of a run (cases run concurrently, and "in a row" means in the order exchanges finish); any other
 * result, an answer or another transport failure, starts the count again.
 */
export class TimeoutBreaker {
  #timeoutsInARow = 0;

  constructor(
    readonly limit: number,
    readonly timeoutMs: number,
  ) {}

  /** True once `limit` exchanges in a row have timed out: nothing more should be sent. */
  get open(): boolean {
    return this.#timeoutsInARow >= this.limit;
  }

  /** Counts the result of an exchange that was sent. */
  record(result: ExchangeResult): void {
    if (!result.ok && result.failure.kind === "timeout") this.#timeoutsInARow++;
    else this.#timeoutsInARow = 0;
  }

  /** The result that stands in for a request not sent because the breaker is open. */
  notSent(): ExchangeResult & { readonly ok: false } {
    const last = `the last ${this.#timeoutsInARow} requests within ${this.timeoutMs} ms`;
    const message = `not sent: the target answered none of ${last}`;
    return { ok: false, failure: { kind: "timeout", message }, durationMs: 0 };
  }
}
