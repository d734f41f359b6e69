// The envelope of the small OpenAPI documents tests write inline: the version and info around the
// paths, so a test states only what it is about.

/** What a test may set beside the paths: the version (default 3.1.0), the title, any other member. */
export interface Envelope {
  readonly openapi?: string;
  readonly title?: string;
  readonly version?: string;
  readonly [member: string]: unknown;
}

/** The document: what the envelope sets, typed as given, so a test can read back its own members. */
export type OpenApiDocument<E extends Envelope> = {
  readonly openapi: string;
  readonly info: { readonly title: string; readonly version: string };
  readonly paths: Record<string, unknown>;
} & Omit<E, "openapi" | "title" | "version">;

/** An OpenAPI document of these paths: `openapi`, `info` (title `t`, version `1` unless given), the rest. */
export function openApi<E extends Envelope = Envelope>(
  paths: Record<string, unknown>,
  envelope: E = {} as E,
): OpenApiDocument<E> {
  const { openapi = "3.1.0", title = "t", version = "1", ...rest } = envelope;
  return { openapi, info: { title, version }, paths, ...rest } as OpenApiDocument<E>;
}
