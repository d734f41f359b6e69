// Defaults shared by `plantstore serve` and the fetch handler; a leaf module, safe in browsers.

/** The documented development token, used when no token is configured. */
export const DEV_TOKEN = "plantstore-dev-token";
export const DEFAULT_MAX_PLANTS = 1_000_000;
/** Request bodies above this are refused with 413 unless configured otherwise (--max-body). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
