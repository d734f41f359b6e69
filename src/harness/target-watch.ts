import type { ExchangeResult, TransportFailure } from "./http-client.js";
import { NOT_SENT_ERROR } from "./results.js";

/**
 * Why a request was not judged: not sent, cut off by the target's stop while in flight, or the
 * request the target most likely stopped during (not known for sure: others were in flight).
 */
export interface Held {
  readonly held: "not-sent" | "cut-off" | "stopped-here";
  /** What the case's error says. */
  readonly message: string;
  /** The exchange, for a request that was cut off. */
  readonly result?: ExchangeResult;
}

/**
 * What a send came to: an exchange to judge, or a request held back from judgement. `repeated`: the
 * answer is to the request sent a second time, after the target had read the first (which may then
 * have been applied).
 */
export type Sent = (ExchangeResult & { readonly repeated?: true }) | Held;

/** How the target stopped, as the run's error says it. */
export interface TargetStopped {
  /** The request most likely to have stopped it: the first sent of those cut off. */
  readonly during: string | undefined;
  /** Where no request was cut off: the last one answered before the target went. */
  readonly after: string | undefined;
  /** Whether `during` is known: it was alone on the wire when the connection broke. */
  readonly certain: boolean;
  /** How it stopped: no answer in time to requests in a row, or its connections broke. */
  readonly by: "timeouts" | "connection";
  /** What the harness saw: `connection reset, then refused`. */
  readonly how: string;
  /** The other requests in flight when it stopped. */
  readonly alsoInFlight: readonly string[];
}

interface InFlight {
  readonly label: string;
  readonly order: number;
  /** Its connection closed with a FIN, not a reset: the target had read it (see ExchangeResult). */
  read?: boolean;
  /** Sends it again (see #sortOut). */
  exchange?: () => Promise<ExchangeResult>;
  /** Its first exchange, when its connection broke. */
  first?: ExchangeResult;
  /** The connections that broke together with its own, once counted. */
  batch?: readonly InFlight[];
  /** What it came to, once sorted out with its batch. */
  decided?: Sent;
  /** Another request was in flight at some point during this one. */
  overlapped: boolean;
}

/**
 * Whether the target is still there, for every request of a run (cases run concurrently).
 *
 * - A target that accepts connections and answers nothing: after `limit` exchanges in a row end in a
 *   timeout, the rest of the run is not sent, so the run ends in about limit x timeout.
 * - A target whose connection breaks (a reset, or a refused connection after it had answered): new
 *   requests wait, the ones in flight finish, and one connection is opened alone. Refused: the target
 *   has stopped (crashed), the run is over, and the request most likely to have stopped it is named.
 *   There, with several connections broken together: each request is sent again alone (#sortOut), so
 *   a reset is charged to the request that causes it and never to a bystander.
 */
export class TargetWatch {
  #timeoutsInARow = 0;
  #firstTimedOut: string | undefined;
  #stopped: TargetStopped | undefined;
  /** The request the target stopped during; its own failure is judged when that is known for sure. */
  #culprit: InFlight | undefined;
  #lastAnswered: string | undefined;
  #order = 0;
  readonly #inFlight = new Set<InFlight>();
  /** Requests whose connection broke since the target last proved there, by the order they were sent. */
  readonly #suspects: InFlight[] = [];
  /** Checks run one at a time; while any is pending, nothing new is sent. */
  #checks: Promise<unknown> = Promise.resolve();
  #pending = 0;
  #gate: Promise<void> | undefined;
  #openGate: () => void = () => undefined;
  #idle: (() => void) | undefined;

  constructor(
    readonly limit: number,
    readonly timeoutMs: number,
    readonly probe: () => Promise<TransportFailure | undefined>,
  ) {}

  /** True once the target has stopped answering: nothing more should be sent. */
  get open(): boolean {
    return this.#stopped !== undefined;
  }

  /** How the target stopped, once it has. */
  get stopped(): TargetStopped | undefined {
    return this.#stopped;
  }

  /** The run's error for a target that stopped, in words; undefined while it is there. */
  stoppedMessage(): string | undefined {
    const s = this.#stopped;
    if (s === undefined) return undefined;
    const timeouts = s.by === "timeouts";
    const where =
      s.during !== undefined
        ? timeouts
          ? `from ${s.during} on`
          : `during ${s.during}${s.certain ? "" : ", most likely"}`
        : s.after !== undefined
          ? `after ${s.after}`
          : "before any answer";
    const crashed = timeouts ? "is it overloaded or stuck?" : "did it crash?";
    const others =
      s.alsoInFlight.length === 0
        ? ""
        : `; also in flight then: ${s.alsoInFlight.slice(0, 5).join(", ")}` +
          (s.alsoInFlight.length > 5 ? ` and ${s.alsoInFlight.length - 5} more` : "");
    return `the target stopped answering ${where} (${s.how}): ${crashed}${others}`;
  }

  /** The result for a request not sent because the target has stopped. */
  notSent(): Held {
    return { held: "not-sent", message: NOT_SENT_ERROR };
  }

  /** Sends one request (`label` names it in reports) unless the target has stopped. */
  async send(label: string, exchange: () => Promise<ExchangeResult>): Promise<Sent> {
    while (this.#gate !== undefined) await this.#gate;
    if (this.open) return this.notSent();
    const entry = this.#begin(label);
    const result = await this.#finish(entry, exchange, true);
    if (result.ok) {
      this.#timeoutsInARow = 0;
      this.#lastAnswered = label;
      return result;
    }
    if (result.failure.kind === "timeout") return this.#timedOut(label, result);
    this.#timeoutsInARow = 0;
    if (result.failure.kind !== "reset" && result.failure.kind !== "unreachable") return result;
    return this.#check(() => this.#lost(entry, result));
  }

  #begin(label: string): InFlight {
    const entry: InFlight = { label, order: this.#order++, overlapped: this.#inFlight.size > 0 };
    for (const other of this.#inFlight) other.overlapped = true;
    this.#inFlight.add(entry);
    return entry;
  }

  /**
   * Awaits an exchange; a first send whose connection broke becomes a suspect before it leaves the
   * requests in flight, so a check waiting for them to finish sees it in its batch.
   */
  async #finish(entry: InFlight, exchange: () => Promise<ExchangeResult>, first = false): Promise<ExchangeResult> {
    let result: ExchangeResult | undefined;
    try {
      result = await exchange();
      if (first && !result.ok && result.failure.kind === "reset") {
        const read = result.closedEarly === true || result.answerBegun === true;
        Object.assign(entry, { read, exchange, first: result });
        this.#suspects.push(entry);
      }
      return result;
    } finally {
      this.#inFlight.delete(entry);
      if (this.#inFlight.size === 0) this.#idle?.();
    }
  }

  #timedOut(label: string, result: ExchangeResult): ExchangeResult {
    if (this.#timeoutsInARow++ === 0) this.#firstTimedOut = label;
    if (this.#timeoutsInARow >= this.limit && this.#stopped === undefined) {
      this.#stopped = {
        during: this.#firstTimedOut,
        after: undefined,
        certain: false,
        by: "timeouts",
        how: `no answer within ${this.timeoutMs} ms to ${this.#timeoutsInARow} requests in a row`,
        alsoInFlight: [],
      };
    }
    return result;
  }

  /** Runs `work` alone: new requests wait until every pending check is done. */
  #check<T>(work: () => Promise<T>): Promise<T> {
    if (this.#pending++ === 0) this.#gate = new Promise((resolve) => (this.#openGate = resolve));
    const run = this.#checks.then(work);
    this.#checks = run.catch(() => undefined);
    return run.finally(() => {
      if (--this.#pending === 0) {
        this.#gate = undefined;
        this.#openGate();
      }
    });
  }

  /** The requests in flight have all finished (new ones wait at the gate). */
  #quiet(): Promise<void> {
    if (this.#inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => (this.#idle = resolve));
  }

  async #lost(entry: InFlight, result: ExchangeResult & { readonly ok: false }): Promise<Sent> {
    if (this.#stopped === undefined && entry.batch === undefined) {
      await this.#quiet();
      if (this.#stopped !== undefined) return this.#afterStop(entry, result); // timeouts, meanwhile
      // The connections that broke while these were in flight broke together: one batch (a refused
      // connection is in none: it never reached the target).
      const batch = this.#suspects.splice(0);
      for (const e of batch) e.batch = batch;
      const gone = await this.probe();
      if (gone !== undefined) this.#stop(gone, batch);
      else if (batch.length > 1) await this.#sortOut(batch);
    }
    if (entry.decided !== undefined) return entry.decided;
    return this.#stopped !== undefined ? this.#afterStop(entry, result) : result;
  }

  /**
   * Connections that broke together while the target stays there: one request may have broken them
   * all (a worker that died and was replaced). Each is sent again alone, in the order sent. One whose
   * connection breaks again alone is the cause; the others are then judged on their answers alone
   * (a request the target had read and may have applied is marked `repeated`). When none breaks
   * again, a request the target had read (its connection closed with a FIN) is judged on its own
   * first exchange, and one it had not (a reset: it never reached the server's code) on its answer
   * alone. A send alone that is refused means the target went: it stops the run, the batch ranked.
   */
  async #sortOut(batch: InFlight[]): Promise<void> {
    const again = new Map<InFlight, Sent>();
    for (const member of [...batch].sort((a, b) => a.order - b.order)) {
      if (this.#stopped !== undefined) break;
      const alone = this.#begin(member.label);
      const answer = await this.#finish(alone, member.exchange!);
      if (!answer.ok && answer.failure.kind === "unreachable") {
        const gone = await this.probe();
        // Gone before it could tell: the batch is ranked as for a crash, each member as #afterStop says.
        if (gone !== undefined) return this.#stop(gone, batch);
      }
      again.set(member, member.read === true ? { ...answer, repeated: true as const } : answer);
      if (answer.ok || answer.failure.kind !== "reset") continue;
      const gone = await this.probe();
      if (gone !== undefined) {
        this.#stop(gone, [alone]);
        this.#culprit = member; // known for sure: it broke the target alone
      }
    }
    const cause = [...again.values()].some((r) => "ok" in r && !r.ok && r.failure.kind === "reset");
    for (const member of batch) {
      const alone = again.get(member);
      if (alone === undefined) continue; // not sent again: the target stopped, #afterStop says so
      member.decided = cause || member.read !== true ? alone : member.first;
      if (member.decided !== undefined && "ok" in member.decided && member.decided.ok)
        this.#lastAnswered = member.label;
    }
  }

  /** A request whose connection broke, once the target has stopped: judged, named, or cut off. */
  #afterStop(entry: InFlight, result: ExchangeResult & { readonly ok: false }): Sent {
    if (this.#culprit === entry && this.#stopped!.certain) return result;
    if (this.#culprit === entry)
      return {
        held: "stopped-here",
        message: `the target stopped answering during this request, most likely (${this.#stopped!.how}): did it crash?`,
        result,
      };
    if (result.failure.kind === "unreachable") return this.notSent();
    return { held: "cut-off", message: "cut off: in flight when the target stopped answering", result };
  }

  /**
   * The target has gone. The request it most likely stopped during is one it had read: a process
   * that exits closes the connections whose data it read with a FIN and the others with a reset
   * (RFC 1122 section 4.2.2.13); among those, the first sent. It is known for sure when it was alone
   * on the wire.
   */
  #stop(gone: TransportFailure, batch: InFlight[]): void {
    batch.sort((a, b) => Number(b.read === true) - Number(a.read === true) || a.order - b.order);
    const first = batch[0];
    const certain = first !== undefined && batch.length === 1 && !first.overlapped;
    this.#culprit = first;
    const then = gone.code === "ECONNREFUSED" ? "refused" : gone.message;
    const others = new Set(batch.filter((s) => s !== first).map((s) => s.label));
    others.delete(first?.label ?? "");
    this.#stopped = {
      during: first?.label,
      after: first === undefined ? this.#lastAnswered : undefined,
      certain,
      by: "connection",
      how:
        first === undefined
          ? `connection ${then}`
          : `connection ${first.read === true ? "closed without an answer" : "reset"}, then ${then}`,
      alsoInFlight: [...others],
    };
  }
}
