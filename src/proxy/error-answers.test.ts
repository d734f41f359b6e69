import { describe, expect, it } from "vitest";
import { KIT_ERRORS } from "../errors.js";
import { ERROR_ANSWERS } from "../server/error-answers.js";
import { answerCodeFor, PROXY_ERROR_ANSWERS, proxyErrorAnswer, type ProxyErrorAnswerCode } from "./error-answers.js";

describe("the proxy's wire-error table", () => {
  it("answers each code with the contract's Error shape, error equal to the status, and the kit error's sentence", () => {
    for (const [code, { status }] of Object.entries(PROXY_ERROR_ANSWERS)) {
      const answer = proxyErrorAnswer(code as ProxyErrorAnswerCode, "detail");
      expect(answer.status).toBe(status);
      expect(JSON.parse(answer.body)).toEqual({
        error: status,
        message: `${KIT_ERRORS[code as ProxyErrorAnswerCode]}: detail`,
        code,
      });
    }
  });

  it("is 504 for silence and 502 for every other failure, and shares no code with the server's table", () => {
    expect(
      (["timeout", "unreachable", "reset", "malformed-http", "length-mismatch"] as const).map((k) => [
        k,
        answerCodeFor(k),
        PROXY_ERROR_ANSWERS[answerCodeFor(k)].status,
      ]),
    ).toEqual([
      ["timeout", "PS_UPSTREAM_TIMEOUT", 504],
      ["unreachable", "PS_UPSTREAM_UNREACHABLE", 502],
      ["reset", "PS_UPSTREAM_RESET", 502],
      ["malformed-http", "PS_UPSTREAM_RESET", 502],
      ["length-mismatch", "PS_UPSTREAM_RESET", 502],
    ]);
    expect(Object.keys(PROXY_ERROR_ANSWERS).filter((c) => c in ERROR_ANSWERS)).toEqual([]);
  });
});
