import { errors } from "undici";
import type { TransportFailureKind } from "../harness/http-client.js";

// Why the upstream gave no usable answer, sorted from the error of whichever client carried the
// exchange (node:http's or undici's, upstream.ts) into the harness's transport failure kinds.

/** Why the upstream gave no usable answer; `unreachable` means no connection could be made at all. */
export interface UpstreamFailure {
  readonly kind: TransportFailureKind;
  readonly message: string;
}

/** A 101: no request through the proxy asks for one, as Upgrade is a hop-by-hop field it does not forward. */
export const SWITCHED =
  "the upstream switched protocols (101) though the request asked for no upgrade, RFC 9110 section 7.8";

const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

/**
 * Sorts an upstream error by its code, never by its message text, but for undici's errors whose code
 * does not say it (see `undiciMeaning`).
 */
export function classify(
  error: unknown,
  timedOut: boolean,
  timeoutMs: number,
  headersSeen: boolean,
  declared: string | undefined,
  got: number,
): UpstreamFailure {
  const e = error as { code?: unknown; message?: string };
  const code = typeof e.code === "string" ? e.code : "";
  const detail = `${code === "" ? "" : `${code}: `}${e.message ?? String(error)}`;
  if (timedOut)
    return {
      kind: "timeout",
      message: `the upstream sent nothing for ${timeoutMs} ms${headersSeen ? " in the middle of its answer" : ""}`,
    };
  if (UNREACHABLE.has(code)) return { kind: "unreachable", message: `could not connect to the upstream (${detail})` };
  if (
    code.startsWith("ERR_TLS") ||
    code.startsWith("CERT_") ||
    code.includes("SELF_SIGNED") ||
    code === "UNABLE_TO_VERIFY_LEAF_SIGNATURE"
  ) {
    return {
      kind: "unreachable",
      message: `TLS with the upstream failed (${detail}); Node trusts NODE_EXTRA_CA_CERTS for a private CA`,
    };
  }
  const short = headersSeen && declared !== undefined && got < Number(declared);
  const meaning = undiciMeaning(error, code);
  if (meaning === "switched")
    return {
      kind: "malformed-http",
      message: `${SWITCHED} (${detail})`,
    };
  if (meaning === "unreadable")
    return {
      kind: "malformed-http",
      message: `the upstream's answer could not be read as HTTP/1.1 (the client stopped at a check of its own: ${firstLine(detail)})`,
    };
  if (code.startsWith("HPE_") || meaning === "malformed" || (meaning === "length" && !short))
    return { kind: "malformed-http", message: `the upstream's answer is not valid HTTP/1.1 (${detail})` };
  if (short) {
    return {
      kind: "length-mismatch",
      message: `the upstream closed after ${got} of the ${declared} bytes its Content-Length announced (${detail})`,
    };
  }
  return {
    kind: "reset",
    message: `the upstream closed the connection ${headersSeen ? "in mid-answer" : "before answering"} (${detail})`,
  };
}

/**
 * What an error of undici's says of the answer, where its code alone does not, read from its message
 * where it has no other: `length`, a body other than its Content-Length (undici's `createError` gives
 * this code also for a parser error in a body of declared length); `ended`, the connection closed in
 * mid-body (llhttp's "Invalid EOF state"; undici's parser errors carry no code, as `ERROR[ret]` looks
 * a number up in a map of names), sorted then as node:http's are (length-mismatch or reset);
 * `switched`, a 101 the request did not ask for ("bad upgrade"); `unreadable`, an answer undici stops
 * at with an assertion (a 101 without Upgrade).
 */
function undiciMeaning(
  error: unknown,
  code: string,
): "length" | "ended" | "malformed" | "switched" | "unreadable" | undefined {
  const message = (error as { message?: unknown }).message;
  if (code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH") return "length";
  if (error instanceof errors.HTTPParserError)
    return typeof message === "string" && message.includes("(Invalid EOF state)") ? "ended" : "malformed";
  if (code === "UND_ERR_HEADERS_OVERFLOW") return "malformed";
  if (code === "UND_ERR_SOCKET" && message === "bad upgrade") return "switched";
  if (code === "ERR_ASSERTION") return "unreadable";
  return undefined;
}

const firstLine = (text: string): string => text.split("\n")[0]!.trim();
