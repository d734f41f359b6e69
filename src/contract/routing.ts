// Which operation a request is for, by OpenAPI's precedence among path templates.

/** What routing needs of a compiled operation. */
export interface Routable {
  /** Lower case HTTP method. */
  readonly method: string;
  readonly pathTemplate: string;
  matchPath(path: string): Readonly<Record<string, string>> | undefined;
}

export type Route<T> =
  | { readonly kind: "found"; readonly operation: T; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: "method-not-allowed"; readonly allowed: readonly string[] }
  | { readonly kind: "not-found" };

/** A segment's rank: a literal one is the most specific, then one mixing text and a template, then `{x}`. */
function segmentRank(segment: string): number {
  if (!segment.includes("{")) return 0;
  return /^\{[^}]*\}$/.test(segment) ? 2 : 1;
}

/**
 * Orders two path templates, the more specific first. OAS 3.1 section 4.8.8.2 (Paths Object, Path
 * Templating Matching): "When matching URLs, concrete (non-templated) paths would be matched before
 * their templated counterparts." Generalised segment by segment from the left: at the first segment
 * where they differ in kind, a literal beats a templated one (so `/plants/mine` before `/plants/{id}`,
 * `/a/b/{x}` before `/a/{y}/c`). Templates equal by this order keep their declaration order (the sort
 * is stable); templates of different lengths never match the same path, so the shorter goes first.
 */
export function compareTemplates(a: string, b: string): number {
  const as = a.split("/");
  const bs = b.split("/");
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const d = segmentRank(as[i] as string) - segmentRank(bs[i] as string);
    if (d !== 0) return d;
  }
  return as.length - bs.length;
}

/** The methods as node:http gives them, in lower case: no text made per request. */
const LOWER_CASE: Readonly<Record<string, string>> = Object.assign(Object.create(null) as Record<string, string>, {
  GET: "get",
  PUT: "put",
  POST: "post",
  DELETE: "delete",
  OPTIONS: "options",
  HEAD: "head",
  PATCH: "patch",
  TRACE: "trace",
});

/**
 * A router over operations, their precedence computed once. A request goes to the most specific
 * matching path that has its method: when the most specific lacks it and a less specific one has it,
 * the request is that one's (DELETE /plants/mine may mean the plant whose id is "mine"; the contract
 * does not say otherwise). `method-not-allowed` only when no matching path has the method, listing
 * every method the matching paths have (most specific path first, each once, upper case).
 */
export function createRouter<T extends Routable>(operations: readonly T[]): (method: string, path: string) => Route<T> {
  const groups = new Map<string, T[]>();
  for (const op of operations) {
    const group = groups.get(op.pathTemplate);
    if (group === undefined) groups.set(op.pathTemplate, [op]);
    else group.push(op);
  }
  const ordered = [...groups.entries()].sort(([a], [b]) => compareTemplates(a, b)).map(([, ops]) => ops);
  return (method, path) => {
    const m = LOWER_CASE[method] ?? method.toLowerCase();
    let allowed: string[] | undefined;
    for (const ops of ordered) {
      const params = (ops[0] as T).matchPath(path);
      if (params === undefined) continue;
      for (const o of ops) if (o.method === m) return { kind: "found", operation: o, params };
      allowed ??= [];
      for (const o of ops) if (!allowed.includes(o.method.toUpperCase())) allowed.push(o.method.toUpperCase());
    }
    return allowed !== undefined ? { kind: "method-not-allowed", allowed } : { kind: "not-found" };
  };
}
