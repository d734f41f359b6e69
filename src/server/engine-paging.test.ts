import { describe, expect, it } from "vitest";
import { engineOf } from "../../test/engine-of.js";

// Page-number paging in the mock engine: the first page is the documented first page number (1, or 0
// where the page parameter's minimum or default says so), it holds the first items made, and each
// page after it the next ones, each item once.

const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const book = { type: "object", properties: { id: { type: "integer", readOnly: true }, title: { type: "string" } } };

/** A collection of books listed by `page` and `per_page`, the page parameter's schema as given. */
function books(pageSchema: Record<string, unknown>) {
  const page = {
    type: "object",
    required: ["results"],
    properties: {
      page: { type: "object", properties: { number: { type: "integer" } } },
      next: { type: "string", nullable: true },
      previous: { type: "string", nullable: true },
      results: { type: "array", items: book },
    },
  };
  const { send } = engineOf(
    {
      "/books": {
        get: {
          operationId: "list",
          parameters: [
            { name: "page", in: "query", schema: pageSchema },
            { name: "per_page", in: "query", schema: { type: "integer" } },
          ],
          responses: { "200": json(page) },
        },
        post: { operationId: "make", requestBody: { required: true, ...json(book) }, responses: { "201": json(book) } },
      },
    },
    "paging.json",
  );
  for (let i = 0; i < 5; i++) expect(send("POST", "/books", { title: `b${i}` }).status).toBe(201);
  /** The titles of the books of a page, in the order answered. */
  const titles = (url: string) => {
    const answer = send("GET", url);
    expect(answer.status).toBe(200);
    return (answer.body.results as { title: string }[]).map((b) => b.title);
  };
  return { send, titles };
}

describe("page-number paging in the mock engine", () => {
  it("page=1 is the first page: the first items made, page=2 the next ones, the last page the rest", () => {
    const { titles } = books({ type: "integer" });
    expect(titles("/books?page=1&per_page=2")).toEqual(["b0", "b1"]);
    expect(titles("/books?page=2&per_page=2")).toEqual(["b2", "b3"]);
    expect(titles("/books?page=3&per_page=2")).toEqual(["b4"]);
    expect(titles("/books?page=4&per_page=2")).toEqual([]);
  });

  it("without a page number the list answers the first page, the same as page=1: it says it is page 1, and its next is page 2", () => {
    const { titles, send } = books({ type: "integer", minimum: 1 });
    expect(titles("/books?per_page=2")).toEqual(["b0", "b1"]);
    expect(titles("/books?page=1&per_page=2")).toEqual(["b0", "b1"]);
    expect(send("GET", "/books?per_page=2").body).toMatchObject({
      page: { number: 1 },
      next: "http://mock.test/books?per_page=2&page=2",
    });
  });

  it("following next from page=1 visits every item once, in the order made, each page saying its number", () => {
    const { send } = books({ type: "integer", default: 1 });
    const seen: string[] = [];
    const numbers: number[] = [];
    let url: string | null = "/books?page=1&per_page=2";
    while (url !== null) {
      const body: { next: string | null; page: { number: number }; results: { title: string }[] } = send(
        "GET",
        url.replace("http://mock.test", ""),
      ).body;
      seen.push(...body.results.map((b) => b.title));
      numbers.push(body.page.number);
      url = body.next;
    }
    expect(seen).toEqual(["b0", "b1", "b2", "b3", "b4"]);
    expect(numbers).toEqual([1, 2, 3]);
  });

  it("each page's previous page is the one before it, and page=1 has none", () => {
    const { send } = books({ type: "integer" });
    expect(send("GET", "/books?page=3&per_page=2").body.previous).toBe("http://mock.test/books?page=2&per_page=2");
    expect(send("GET", "/books?page=2&per_page=2").body.previous).toBe("http://mock.test/books?page=1&per_page=2");
    expect(send("GET", "/books?page=1&per_page=2").body.previous).toBeNull();
  });

  it("where the page parameter starts at 0 (its minimum or default), page=0 is the first page and page=1 the second", () => {
    for (const schema of [
      { type: "integer", minimum: 0 },
      { type: "integer", default: 0 },
    ]) {
      const { titles } = books(schema);
      expect(titles("/books?page=0&per_page=2")).toEqual(["b0", "b1"]);
      expect(titles("/books?page=1&per_page=2")).toEqual(["b2", "b3"]);
      expect(titles("/books?page=2&per_page=2")).toEqual(["b4"]);
    }
  });
});
