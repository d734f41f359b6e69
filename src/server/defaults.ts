// Defaults and the one options vocabulary of the mock engine, whatever serves it; a leaf module, safe
// in browsers.

/** The documented development token, used when no token is configured. */
export const DEV_TOKEN = "plantstore-dev-token";
/** How many items the store holds unless configured otherwise (--max-items, `maxItems`). */
export const DEFAULT_MAX_ITEMS = 1_000_000;
/** @deprecated Use DEFAULT_MAX_ITEMS (the same number). */
export const DEFAULT_MAX_PLANTS = DEFAULT_MAX_ITEMS;
/** Request bodies above this are refused with 413 unless configured otherwise (--max-body). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** How deep a JSON request body may nest (arrays and objects) before it is refused, unparsed. */
export const DEFAULT_MAX_DEPTH = 512;

/**
 * The options of the mock engine, whatever serves it: over HTTP (`startMockServer`, `plantstore
 * serve`) or as a fetch handler (`createMockHandler`). The Plant Store reference server is the same
 * engine with the kit's spec: its options are these.
 */
export interface MockOptions {
  /** Bearer tokens and API keys to accept (RFC 6750 b64token); without any, the development token. */
  readonly tokens?: readonly string[];
  /** Basic `user:password` pairs to accept; without any, `plantstore:` and the development token. */
  readonly basic?: readonly string[];
  /** Browser origins given CORS headers: `*` for any (the default) or exact origins; none: no CORS headers. */
  readonly corsOrigins?: readonly string[];
  /** Request headers a preflight may allow besides the contract's; by default any the browser asks for. */
  readonly corsHeaders?: readonly string[];
  /** How many items the store holds in all; beyond it creates get a 400 (default 1,000,000). */
  readonly maxItems?: number;
  /** Largest request body in bytes; larger ones get 413 (default 1 MiB). */
  readonly maxBodyBytes?: number;
  /** Deepest nesting of arrays and objects a JSON request body may have; deeper ones get 400 (default 512). */
  readonly maxDepth?: number;
  /** Milliseconds to wait before every answer, so frontends can build loading states (default 0). */
  readonly delayMs?: number;
  /** Serve GET and DELETE /__admin/store (list, empty; the Plant Store's /__admin/plants too); needs a token. */
  readonly admin?: boolean;
  /**
   * Honour `Prefer: code=NNN` (a documented status, an error in the documented shape) and
   * `Prefer: example=NAME` (a named example), as Prism does. Off by default.
   */
  readonly errorsOnDemand?: boolean;
}

/** The names of one release before, still accepted beside MockOptions (the current name wins). */
export interface DeprecatedMockOptions {
  /** @deprecated Use maxItems. */
  readonly maxPlants?: number;
  /** @deprecated Use errorsOnDemand. */
  readonly preferOnDemand?: boolean;
  /** @deprecated Use maxBodyBytes. */
  readonly maxBody?: number;
  /** @deprecated Use delayMs. */
  readonly delay?: number;
}

/** @deprecated Use MockOptions: the reference server is the mock engine with the kit's spec. */
export type ReferenceOptions = MockOptions & DeprecatedMockOptions;
