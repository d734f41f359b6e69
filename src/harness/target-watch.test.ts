import { describe, expect, it } from "vitest";
import type { ExchangeResult, TransportFailure } from "./http-client.js";
import { TargetWatch } from "./target-watch.js";

const timeout: ExchangeResult = { ok: false, failure: { kind: "timeout", message: "no answer" }, durationMs: 100 };
const reset: ExchangeResult = { ok: false, failure: { kind: "reset", message: "reset" }, durationMs: 1 };
const refused: ExchangeResult = {
  ok: false,
  failure: { kind: "unreachable", message: "could not connect", code: "ECONNREFUSED" },
  durationMs: 1,
};
const answer: ExchangeResult = {
  ok: true,
  response: { status: 200, headers: {}, body: Buffer.alloc(0) },
  durationMs: 1,
};
const gone: TransportFailure = { kind: "unreachable", message: "could not connect", code: "ECONNREFUSED" };

/** A watch whose target is there until `down()` is called. */
function watch(limit = 3) {
  let up = true;
  const w = new TargetWatch(limit, 100, () => Promise.resolve(up ? undefined : gone));
  return { w, down: () => (up = false) };
}

describe("TargetWatch", () => {
  it.each([
    ["no exchange yet", false, []],
    ["two timeouts of three", false, [timeout, timeout]],
    ["three timeouts in a row", true, [timeout, timeout, timeout]],
    ["an answer between timeouts", false, [timeout, timeout, answer, timeout, timeout]],
    ["another failure between timeouts", false, [timeout, timeout, reset, timeout, timeout]],
    ["three in a row after an answer", true, [answer, timeout, timeout, timeout]],
  ] as const)("%s: stopped is %s", async (_name, stopped, results) => {
    const { w } = watch();
    for (const [i, result] of results.entries()) await w.send(`case-${i}`, () => Promise.resolve(result));
    expect(w.open).toBe(stopped);
  });

  it("after timeouts in a row, sends nothing more and names where the silence began", async () => {
    const { w } = watch(2);
    await w.send("a", () => Promise.resolve(answer));
    await w.send("b", () => Promise.resolve(timeout));
    await w.send("c", () => Promise.resolve(timeout));
    let sent = false;
    const held = await w.send("d", () => ((sent = true), Promise.resolve(answer)));
    expect(sent).toBe(false);
    expect(held).toEqual({ held: "not-sent", message: "not sent: the target had stopped answering" });
    expect(w.stoppedMessage()).toBe(
      "the target stopped answering from b on (no answer within 100 ms to 2 requests in a row): is it overloaded or stuck?",
    );
  });

  it("a reset alone on the wire, then a refused connection: that request stopped it, and its failure is judged", async () => {
    const { w, down } = watch();
    await w.send("a", () => Promise.resolve(answer));
    const result = await w.send("b", () => (down(), Promise.resolve(reset)));
    expect(result).toBe(reset);
    expect(w.stoppedMessage()).toBe(
      "the target stopped answering during b (connection reset, then refused): did it crash?",
    );
  });

  it("refused after an answer, with nothing cut off: the run says after which request", async () => {
    const { w, down } = watch();
    await w.send("a", () => (down(), Promise.resolve(answer)));
    expect(await w.send("b", () => Promise.resolve(refused))).toEqual({
      held: "not-sent",
      message: "not sent: the target had stopped answering",
    });
    expect(w.stoppedMessage()).toBe("the target stopped answering after a (connection refused): did it crash?");
  });

  it("a reset alone, the target still there: the request's own, judged as it came", async () => {
    const { w } = watch();
    let tries = 0;
    const slow = w.send("slow", () => new Promise<ExchangeResult>((r) => setTimeout(() => r(answer), 5)));
    expect(await w.send("own", () => (tries++, Promise.resolve(reset)))).toBe(reset);
    expect(await slow).toBe(answer);
    expect(tries).toBe(1);
  });

  it("resets together, the target still there: each sent again alone, judged on that answer", async () => {
    const { w } = watch();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const tries = { culprit: 0, bystander: 0 };
    // Both connections break at once; the culprit's breaks again when it is alone.
    const culprit = w.send("culprit", async () => (tries.culprit++ === 0 && (await gate), reset));
    const bystander = w.send("bystander", async () => (tries.bystander++ === 0 ? (await gate, reset) : answer));
    release();
    expect(await culprit).toBe(reset);
    expect(await bystander).toBe(answer);
    expect(tries).toEqual({ culprit: 2, bystander: 2 });
    expect(w.open).toBe(false);
  });

  it("a request the target had read (a close before any answer) is marked as sent twice", async () => {
    const { w } = watch();
    const read: ExchangeResult = { ...reset, closedEarly: true };
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let n = 0;
    const first = w.send("a", async () => (n++ === 0 ? (await gate, read) : answer));
    const second = w.send("b", async () => (await gate, reset));
    release();
    await second;
    expect(await first).toEqual({ ...answer, repeated: true });
  });

  it("resets a few milliseconds apart (separate I/O events) are one batch: the bystander is sent again", async () => {
    const { w } = watch();
    const later = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const tries = { culprit: 0, bystander: 0 };
    const culprit = w.send("culprit", async () => (tries.culprit++ === 0 && (await later(5)), reset));
    const bystander = w.send("bystander", async () => (tries.bystander++ === 0 ? (await later(9), reset) : answer));
    expect(await culprit).toBe(reset);
    expect(await bystander).toBe(answer);
  });

  it("a target that dies before the batch is sent again stops the run, naming the request it had read", async () => {
    let probes = 0;
    const w = new TargetWatch(3, 100, () => Promise.resolve(probes++ === 0 ? undefined : gone));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const n = { a: 0, b: 0 };
    const read: ExchangeResult = { ...reset, closedEarly: true };
    const a = w.send("a", async () => (n.a++ === 0 ? (await gate, reset) : refused));
    const b = w.send("b", async () => (n.b++ === 0 ? (await gate, read) : refused));
    release();
    const [ra, rb] = await Promise.all([a, b]);
    expect(w.open).toBe(true);
    expect(w.stopped?.during).toBe("b");
    expect([ra, rb].map((r) => ("held" in r ? r.held : "judged"))).toEqual(["cut-off", "stopped-here"]);
  });

  it("resets together that none repeats alone: one the target had read is charged, one it never read is not", async () => {
    const { w } = watch();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const read: ExchangeResult = { ...reset, closedEarly: true };
    const n = { read: 0, unread: 0 };
    const a = w.send("read", async () => (n.read++ === 0 ? (await gate, read) : answer));
    const b = w.send("unread", async () => (n.unread++ === 0 ? (await gate, reset) : answer));
    release();
    expect(await a).toBe(read);
    expect(await b).toBe(answer);
  });
});
