/**
 * Errors the kit raises when it cannot do its work (a bad flag, an unreadable spec, a malformed
 * fixture). Callers match on `code`, never on message text; every code is in this table and in the
 * list in docs/errors.md (errors.test.ts keeps the two together).
 */
export const KIT_ERRORS = {
  PS_USAGE: "the command line is not valid",
  PS_SPEC_UNREADABLE: "the OpenAPI document could not be read",
  PS_SPEC_INVALID: "the OpenAPI document is not valid OpenAPI 3.0 or 3.1",
  PS_FIXTURE_INVALID: "a fixture file is not valid",
  PS_FIXTURE_UNKNOWN_OPERATION: "a fixture names an operation the spec does not have",
  PS_TARGET_UNREACHABLE: "the target could not be reached",
  PS_TARGET_STOPPED: "the target stopped answering during the run",
  PS_PATHS_NOT_FOUND: "no documented path found under the target",
  PS_CREDENTIALS_REFUSED: "credentials refused",
  PS_FILE_UNREADABLE: "a file named on the command line could not be read",
  PS_REPORT_UNWRITABLE: "a report file could not be written",
  PS_BASELINE_INVALID: "the baseline file is not valid",
  PS_DATA_INVALID: "a seed data file is not valid",
  PS_CHILD_FAILED: "a child process (Prism) failed to start or exited early",
  PS_PORT_IN_USE: "the address to listen on is in use",
  PS_UPSTREAM_UNREACHABLE: "the proxy's upstream could not be reached",
  PS_UPSTREAM_RESET: "the proxy's upstream closed the connection without a usable answer",
  PS_UPSTREAM_TIMEOUT: "the proxy's upstream did not answer in time",
} as const;

export type KitErrorCode = keyof typeof KIT_ERRORS;

/** The one error class of the kit; `code` is stable, `message` says what happened and where. */
export class KitError extends Error {
  readonly code: KitErrorCode;

  constructor(code: KitErrorCode, detail: string, options?: { cause?: unknown }) {
    super(`${KIT_ERRORS[code]}: ${detail}`, options);
    this.name = "KitError";
    this.code = code;
  }
}
