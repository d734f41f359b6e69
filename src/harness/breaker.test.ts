import { describe, expect, it } from "vitest";
import { TimeoutBreaker } from "./breaker.js";
import type { ExchangeResult } from "./http-client.js";

const timeout: ExchangeResult = { ok: false, failure: { kind: "timeout", message: "no answer" }, durationMs: 100 };
const reset: ExchangeResult = { ok: false, failure: { kind: "reset", message: "reset" }, durationMs: 1 };
const answer: ExchangeResult = {
  ok: true,
  response: { status: 200, headers: {}, body: Buffer.alloc(0) },
  durationMs: 1,
};

describe("TimeoutBreaker", () => {
  it.each([
    ["no exchange yet", [], false],
    ["two timeouts of three", [timeout, timeout], false],
    ["three timeouts in a row", [timeout, timeout, timeout], true],
    ["an answer between timeouts", [timeout, timeout, answer, timeout, timeout], false],
    ["another failure between timeouts", [timeout, timeout, reset, timeout, timeout], false],
    ["three in a row after an answer", [answer, timeout, timeout, timeout], true],
  ])("%s: open is %s", (_name, results, open) => {
    const breaker = new TimeoutBreaker(3, 100);
    for (const result of results) breaker.record(result);
    expect(breaker.open).toBe(open);
  });

  it("stands in for a request not sent with a timeout that says why", () => {
    const breaker = new TimeoutBreaker(2, 250);
    breaker.record(timeout);
    breaker.record(timeout);
    expect(breaker.notSent()).toEqual({
      ok: false,
      failure: { kind: "timeout", message: "not sent: the target answered none of the last 2 requests within 250 ms" },
      durationMs: 0,
    });
  });
});
