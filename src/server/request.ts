// A request as the mock engine reads it, whatever carried it (node:http, a fetch Request), and the
// path the contract's templates are matched against.

export interface CoreRequest {
  readonly method: string;
  /** The request target as received, path and optional query. */
  readonly url: string;
  /** Header names in lower case, as node:http gives them. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Uint8Array;
}

const UNRESERVED = /%(2[DdEe]|3[0-9]|[46][1-9A-Fa-f]|[57][0-9Aa]|5[Ff]|7[Ee])/g;

/**
 * The path of a request target: origin-form (`/plants?x`) or absolute-form (`http://host/plants`,
 * which RFC 9112 section 3.2.2 says servers must accept), without query or user info, with
 * percent-encoded unreserved characters decoded (RFC 3986 section 6.2.2.2).
 */
export function requestPath(target: string): string {
  const q = target.indexOf("?");
  let path = q < 0 ? target : target.slice(0, q);
  if (path.charCodeAt(0) === 0x2f && !path.includes("%")) return path; // the common case: /plants
  if (!path.startsWith("/")) {
    try {
      path = new URL(target).pathname;
    } catch {
      return path;
    }
  }
  return path.replace(UNRESERVED, (m) => String.fromCharCode(parseInt(m.slice(1), 16)));
}
