import { KIT_ERRORS } from "../errors.js";
import type { TransportFailureKind } from "../harness/http-client.js";

/**
 * Every answer the proxy writes itself, in one table: when the upstream gave no answer head to
 * forward, the client gets one of these instead, in the shape of the reference server's wire errors
 * (src/server/error-answers.ts): a JSON body of the contract's Error shape ({ error: int32, message }),
 * plus `code`. The messages are the kit errors' of the same codes (src/errors.ts), so one sentence
 * names each failure wherever it is shown.
 */
export const PROXY_ERROR_ANSWERS = {
  PS_UPSTREAM_UNREACHABLE: { status: 502, message: KIT_ERRORS.PS_UPSTREAM_UNREACHABLE },
  PS_UPSTREAM_RESET: { status: 502, message: KIT_ERRORS.PS_UPSTREAM_RESET },
  PS_UPSTREAM_TIMEOUT: { status: 504, message: KIT_ERRORS.PS_UPSTREAM_TIMEOUT },
} as const;

export type ProxyErrorAnswerCode = keyof typeof PROXY_ERROR_ANSWERS;

/** The proxy's answer for an upstream failure of this kind, before any answer head. */
export function answerCodeFor(kind: TransportFailureKind): ProxyErrorAnswerCode {
  if (kind === "timeout") return "PS_UPSTREAM_TIMEOUT";
  if (kind === "unreachable") return "PS_UPSTREAM_UNREACHABLE";
  return "PS_UPSTREAM_RESET";
}

/** The status and body of an answer of the table; `detail` says what exactly happened. */
export function proxyErrorAnswer(code: ProxyErrorAnswerCode, detail: string): { status: number; body: string } {
  const { status, message } = PROXY_ERROR_ANSWERS[code];
  return { status, body: JSON.stringify({ error: status, message: `${message}: ${detail}`, code }) };
}
