import type { CompiledOperation, RequestRefusal } from "../contract/portable.js";
import type { ErrorAnswerCode } from "./error-answers.js";

/** A refused request as the wire-error table says it: the code, what exactly was wrong, and extra fields. */
export interface RefusalError {
  readonly code: ErrorAnswerCode;
  readonly detail: string | undefined;
  readonly extra: Readonly<Record<string, unknown>>;
}

/** The error for each reason the contract refuses a request for (the table is error-answers.ts). */
export function refusalError(operation: CompiledOperation, refusal: RequestRefusal): RefusalError {
  const documented = [...(operation.requestBody?.content.keys() ?? [])];
  const violations = (): Record<string, unknown> =>
    "violations" in refusal
      ? { violations: refusal.violations.map(({ location, keyword, message }) => ({ location, keyword, message })) }
      : {};
  switch (refusal.reason) {
    case "parameter":
      return { code: "PS_PARAMETER_INVALID", detail: refusal.detail, extra: violations() };
    case "missing":
      return { code: "PS_BODY_MISSING", detail: `send a JSON ${documented.join(" or ")} body`, extra: {} };
    case "media-type": {
      const received = refusal.contentType === undefined ? "missing" : JSON.stringify(refusal.contentType);
      return {
        code: "PS_UNSUPPORTED_MEDIA_TYPE",
        detail: `Content-Type is ${received}; send ${documented.join(", ")}`,
        extra: {},
      };
    }
    case "charset":
      return {
        code: "PS_UNSUPPORTED_MEDIA_TYPE",
        detail: `charset ${JSON.stringify(refusal.charset)} is not UTF-8`,
        extra: {},
      };
    case "utf-8":
      return { code: "PS_INVALID_UTF8", detail: undefined, extra: {} };
    case "json":
      return { code: "PS_MALFORMED_JSON", detail: refusal.syntax, extra: {} };
    case "schema":
      return { code: "PS_BODY_INVALID", detail: refusal.detail, extra: violations() };
  }
}
