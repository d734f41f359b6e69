// Defaults and options shared by `plantstore serve` and the fetch handler; a leaf module, safe in browsers.

/** The documented development token, used when no token is configured. */
export const DEV_TOKEN = "plantstore-dev-token";
export const DEFAULT_MAX_PLANTS = 1_000_000;
/** Request bodies above this are refused with 413 unless configured otherwise (--max-body). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The options of the reference server, over HTTP (`plantstore serve`) or as a fetch handler alike. */
export interface ReferenceOptions {
  /** Bearer tokens to accept (RFC 6750 b64token); without any, the development token. */
  readonly tokens?: readonly string[];
  /** Browser origins given CORS headers: `*` for any (the default) or exact origins; none: no CORS headers. */
  readonly corsOrigins?: readonly string[];
  /** Request headers a preflight may allow besides the contract's; by default any the browser asks for. */
  readonly corsHeaders?: readonly string[];
  /** How many plants the store holds; beyond it creates get a 400 Error (default 1,000,000). */
  readonly maxPlants?: number;
  /** Serve GET/DELETE /__admin/plants (list, reset the store); needs the token too. */
  readonly admin?: boolean;
  /** Answer `Prefer: code=400` with the documented 400 Error, as Prism does. */
  readonly errorsOnDemand?: boolean;
}
