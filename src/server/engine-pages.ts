// A list's page: which items of a collection a list request asks for (by limit, offset, page number
// or cursor, as the resource model reads its parameters), and the answer's paging fields filled so
// that following them visits every item once: the next page's URL or token, whether there is more,
// the total, and a `Link` header (RFC 8288) where the list documents one. Portable: no Node module.
import { propertiesOf, propertySchemaAt, unescapePointer, type ListShape, type Resolve } from "../contract/portable.js";
import { keyOf } from "./engine-values.js";

type Json = Record<string, unknown>;

/** What a list request asks for, read from its query. */
export interface PageRequest {
  readonly query: URLSearchParams;
  /** The request's path as received (without the query), and its Host header, for next links. */
  readonly path: string;
  readonly host: string | undefined;
  /** The limit's default, where the parameter's schema gives one. */
  readonly defaultLimit: number | undefined;
  /** An item's id, for a cursor that names the last item seen. */
  readonly idOf: (item: Json) => unknown;
}

/** One page: its items, and the list answer's value with every paging field in place. */
export interface Page {
  readonly items: Json[];
  readonly value: unknown;
  /** `Link: <next>; rel="next"` where the list documents the header and there is a next page. */
  readonly headers: Readonly<Record<string, string>>;
  /** A page number past the last page was asked for (Django answers such a page 404). */
  readonly pastTheEnd: boolean;
}

const number = (text: string | null): number | undefined =>
  text === null || !/^\d+$/.test(text) ? undefined : Number(text);

/**
 * The page of `items` (filtered already, in the order made) a request asks for. A cursor is the
 * position of the next item (opaque to clients; the kit writes it as decimal digits), or the id of
 * the last item seen where the model says so (Stripe's `starting_after`).
 */
export function pageOf(
  shape: ListShape,
  items: Iterable<Json>,
  request: PageRequest,
  answerSchema: unknown,
  resolve: Resolve,
): Page {
  const { paging, pages } = shape;
  const q = request.query;
  const limit = number(paging.limit === undefined ? null : q.get(paging.limit)) ?? request.defaultLimit;
  const cursor = paging.cursor === undefined ? null : q.get(paging.cursor);
  const page = number(paging.page === undefined ? null : q.get(paging.page));
  const offset = number(paging.offset === undefined ? null : q.get(paging.offset));
  let start = offset ?? 0;
  if (page !== undefined && limit !== undefined) start = Math.max(0, page - pages.firstPage) * limit;
  // A page past the first with no size to count by holds nothing (the first held every item).
  if (page !== undefined && limit === undefined && page > pages.firstPage) start = Infinity;
  if (cursor !== null && !pages.cursorIsItem) start = number(cursor) ?? 0;
  // The paging the request used is the one its next and previous pages move on.
  const mode: Mode =
    cursor !== null ? "cursor" : offset !== undefined ? "offset" : page !== undefined ? "page" : defaultMode(shape);
  const out: Json[] = [];
  let seen = 0;
  let total = 0;
  let more = false;
  let passed = cursor === null || !pages.cursorIsItem;
  const counting = pages.total !== undefined || pages.totalPages !== undefined || pages.lastPage !== undefined;
  for (const item of items) {
    total++;
    if (!passed) {
      passed = keyOf(request.idOf(item)) === cursor;
      continue;
    }
    if (seen++ < start) continue;
    if (limit === undefined || out.length < limit) out.push(item);
    else {
      more = true;
      if (!counting) break;
    }
  }
  const value: Json = {};
  const pastTheEnd = page !== undefined && page > pages.firstPage && out.length === 0;
  if (shape.itemsAt === "") return { items: out, value: out, headers: {}, pastTheEnd };
  set(value, shape.itemsAt, out);
  // An empty page leads nowhere: its next would be itself (a limit of 0).
  const next =
    more && out.length > 0 ? nextQuery(shape, mode, q, start + out.length, page, out, request.idOf) : undefined;
  const url = next === undefined ? undefined : urlOf(request, next);
  if (pages.nextUrl !== undefined) end(value, pages.nextUrl, pages.nextHolder!, url, answerSchema, resolve);
  if (pages.nextToken !== undefined) {
    const token = next === undefined ? undefined : (next.get(paging.cursor ?? "") ?? undefined);
    end(value, pages.nextToken, pages.nextToken, token, answerSchema, resolve);
  }
  if (pages.previousUrl !== undefined) {
    const previous = start === 0 || start === Infinity ? undefined : previousQuery(shape, mode, q, start, limit, page);
    const at = previous === undefined ? undefined : urlOf(request, previous);
    end(value, pages.previousUrl, pages.previousHolder!, at, answerSchema, resolve);
  }
  if (pages.hasMore !== undefined) set(value, pages.hasMore, more);
  if (pages.selfUrl !== undefined) set(value, pages.selfUrl, request.path);
  const size = limit ?? Math.max(total, 1);
  if (pages.pageNumber !== undefined) set(value, pages.pageNumber, page ?? pages.firstPage);
  if (pages.pageSize !== undefined) set(value, pages.pageSize, size);
  if (pages.totalPages !== undefined) set(value, pages.totalPages, Math.ceil(total / size));
  if (pages.lastPage !== undefined) set(value, pages.lastPage, Math.max(1, Math.ceil(total / size)));
  if (pages.total !== undefined) set(value, pages.total, total);
  const headers: Record<string, string> = pages.linkHeader && url !== undefined ? { link: `<${url}>; rel="next"` } : {};
  return { items: out, value, headers, pastTheEnd };
}

/** How a walk moves on: by a cursor, a page number or an offset. */
type Mode = "cursor" | "page" | "offset" | "none";

/** The paging a list's first page moves on by: its cursor, else its page number, else its offset. */
function defaultMode(shape: ListShape): Mode {
  const { paging } = shape;
  return paging.cursor !== undefined
    ? "cursor"
    : paging.page !== undefined
      ? "page"
      : paging.offset !== undefined
        ? "offset"
        : "none";
}

/** The next page's query: the request's, its position moved on by the paging the request used. */
function nextQuery(
  shape: ListShape,
  mode: Mode,
  query: URLSearchParams,
  position: number,
  page: number | undefined,
  out: readonly Json[],
  idOf: (item: Json) => unknown,
): URLSearchParams | undefined {
  const { paging, pages } = shape;
  if (pages.limitIsCap) return undefined;
  const next = new URLSearchParams(query);
  if (mode === "cursor") {
    const last = out.length === 0 ? undefined : keyOf(idOf(out.at(-1)!));
    const token = pages.cursorIsItem ? last : String(position);
    if (token === undefined) return undefined;
    next.set(paging.cursor!, token);
  } else if (mode === "page") next.set(paging.page!, String((page ?? pages.firstPage) + 1));
  else if (mode === "offset") next.set(paging.offset!, String(position));
  else return undefined;
  return next;
}

/** The previous page's query, by page number or offset; undefined for a cursor (it goes one way). */
function previousQuery(
  shape: ListShape,
  mode: Mode,
  query: URLSearchParams,
  start: number,
  limit: number | undefined,
  page: number | undefined,
): URLSearchParams | undefined {
  const { paging, pages } = shape;
  const previous = new URLSearchParams(query);
  if (mode === "page" && page !== undefined) previous.set(paging.page!, String(Math.max(pages.firstPage, page - 1)));
  else if (mode === "offset" && limit !== undefined) previous.set(paging.offset!, String(Math.max(0, start - limit)));
  else return undefined;
  return previous;
}

/** The next page's URL: the request's path and the next query, absolute where the request named its host. */
function urlOf(request: PageRequest, query: URLSearchParams): string {
  const path = `${request.path}?${query.toString()}`;
  return request.host === undefined || !/^[A-Za-z0-9.:[\]-]+$/.test(request.host)
    ? path
    : `http://${request.host}${path}`;
}

/**
 * A next (or previous) field: its value where there is one; at the end, null where its schema allows
 * null, an empty string where it is required (AIP-158: an empty token ends the walk), else left out.
 */
function end(
  target: Json,
  at: string,
  holder: string,
  value: string | undefined,
  schema: unknown,
  resolve: Resolve,
): void {
  if (value !== undefined) return set(target, at, value);
  // The holder is the link object where the URL sits in one (HAL's `_links.next`): it goes as a whole.
  if (allowsNull(propertySchemaAt(schema, holder, resolve))) return set(target, holder, null);
  if (!requiredAt(schema, holder, resolve)) return drop(target, holder);
  if (holder === at) set(target, at, "");
}

const tokens = (pointer: string): string[] => pointer.split("/").slice(1).map(unescapePointer);

function set(target: Json, pointer: string, value: unknown): void {
  const path = tokens(pointer);
  let here = target;
  for (const t of path.slice(0, -1)) {
    if (typeof here[t] !== "object" || here[t] === null) here[t] = {};
    here = here[t] as Json;
  }
  here[path.at(-1)!] = value;
}

/** Leaves an optional field out (the answer's completion fills only required ones). */
function drop(target: Json, pointer: string): void {
  const path = tokens(pointer);
  let here: Json | undefined = target;
  for (const t of path.slice(0, -1)) here = (here?.[t] ?? undefined) as Json | undefined;
  if (here !== undefined) delete here[path.at(-1)!];
}

function requiredAt(schema: unknown, pointer: string, resolve: Resolve): boolean {
  const path = tokens(pointer);
  const parent = propertySchemaAt(schema, `/${path.slice(0, -1).join("/")}`.replace(/^\/$/, ""), resolve);
  return propertiesOf(parent, resolve).required.has(path.at(-1)!);
}

function allowsNull(schema: unknown): boolean {
  const s = (schema ?? {}) as Json;
  return s.nullable === true || s.type === "null" || (Array.isArray(s.type) && s.type.includes("null"));
}
