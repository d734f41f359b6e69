/**
 * Every error answer the reference server puts on the wire, in one table. Each is a JSON body of
 * the contract's Error shape ({ error: int32, message: string }, both required), plus `code`, a
 * stable string clients can match on. The contract documents only 400; docs/errors.md lists which of
 * the others it leaves open. error-answers.test.ts checks this table against docs/errors.md.
 */
export const ERROR_ANSWERS = {
  PS_MALFORMED_HTTP: { status: 400, message: "the request is not valid HTTP/1.1" },
  PS_PARAMETER_INVALID: { status: 400, message: "a parameter of the request does not match the contract" },
  PS_BODY_MISSING: { status: 400, message: "the request body is required" },
  PS_MALFORMED_JSON: { status: 400, message: "the request body is not valid JSON" },
  PS_INVALID_UTF8: { status: 400, message: "the request body is not valid UTF-8" },
  PS_UNSUPPORTED_MEDIA_TYPE: { status: 400, message: "the request's Content-Type is not accepted" },
  PS_BODY_TOO_DEEP: { status: 400, message: "the request body nests arrays and objects too deep" },
  PS_BODY_INVALID: { status: 400, message: "the request body does not match the contract" },
  PS_EXAMPLE_ERROR: { status: 400, message: "an error answer asked for with Prefer" },
  PS_STORE_FULL: { status: 400, message: "the store holds as many items as it is configured to" },
  PS_UNAUTHORIZED: { status: 401, message: "a valid bearer token is required" },
  PS_NOT_FOUND: { status: 404, message: "no such path" },
  PS_ITEM_NOT_FOUND: { status: 404, message: "no item has this id" },
  PS_PAGE_NOT_FOUND: { status: 404, message: "no such page: the list has fewer pages" },
  PS_METHOD_NOT_ALLOWED: { status: 405, message: "method not allowed on this path" },
  PS_REQUEST_TIMEOUT: { status: 408, message: "the request was not received in time" },
  PS_DUPLICATE_ID: { status: 409, message: "an item with this id already exists" },
  PS_VERSION_CONFLICT: { status: 409, message: "the item has changed since the version the request names" },
  PS_TYPE_CONFLICT: { status: 409, message: "the resource object's type is not the collection's" },
  PS_PATCH_CONFLICT: { status: 409, message: "the patch cannot be applied to the item as it is" },
  PS_BODY_TOO_LARGE: { status: 413, message: "the request body is larger than the server accepts" },
  PS_HEADERS_TOO_LARGE: { status: 431, message: "the request headers are larger than the server accepts" },
  PS_INTERNAL: { status: 500, message: "the server failed unexpectedly" },
  PS_MOCK_UNANSWERABLE: { status: 500, message: "the mock could not make an answer its contract accepts" },
} as const;

export type ErrorAnswerCode = keyof typeof ERROR_ANSWERS;

/**
 * The header that says why a request was refused where the answer the contract documents has no
 * body to say it in; the server's log line says it too.
 */
export const REASON_HEADER = "x-plantstore-reason";

/** A reason as a header value: printable ASCII only (RFC 9110 section 5.5), at most 300 characters. */
export function reasonValue(text: string): string {
  const plain = text.replace(/[^\x20-\x7e]/g, "?");
  return plain.length > 300 ? `${plain.slice(0, 297)}...` : plain;
}

export interface WireResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What an error answer may carry beyond its code and detail. */
export interface ErrorExtras {
  readonly headers?: Readonly<Record<string, string>>;
  /** Members after `code` (the violations of a refused body). */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** Replaces the table's message, where the mock names the resource (`a plant with this id ...`). */
  readonly message?: string;
  /** Replaces the table's status (415 for a media type, a status asked for with Prefer). */
  readonly status?: number;
}

/** Builds an error answer from the table; `detail` says what exactly was wrong (field and rule). */
export function errorAnswer(code: ErrorAnswerCode, detail?: string, more: ErrorExtras = {}): WireResponse {
  const status = more.status ?? ERROR_ANSWERS[code].status;
  const message = more.message ?? ERROR_ANSWERS[code].message;
  const body = {
    error: status,
    message: detail === undefined ? message : `${message}: ${detail}`,
    code,
    ...more.extra,
  };
  return { status, headers: { "content-type": "application/json", ...more.headers }, body: JSON.stringify(body) };
}
