// The kit's harness on the convention set's reference servers (test/conventions/), which nobody here
// fitted to the kit: every reference server passes with the stateful level counted (no false alarm
// on a legitimate choice), and each broken variant, a reference server with one promise broken around
// it, is caught by the check meant for it. The faults are made at the HTTP level, from the documents
// alone, without the kit's resource model.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadContract } from "../src/contract/index.js";
import { runConformance } from "../src/harness/index.js";
import type { StatefulCheckId } from "../src/harness/stateful-check-ids.js";
import type { Convention } from "./conventions/convention.js";
import { CONVENTIONS } from "./conventions/index.js";
import { CONVENTION_TOKEN, serve, type Answer, type Request } from "./conventions/kit.js";
import { tempDir } from "./temp-dir.js";

type Handle = (request: Omit<Request, "params">) => Answer;

/** A broken promise made around a reference server, and the check meant to catch it. */
interface Fault {
  readonly name: string;
  readonly check: StatefulCheckId;
  readonly what: string;
  readonly wrap: (handle: Handle, convention: Convention) => Handle;
}

/** The path template a request's path matches in the document; undefined for none. */
function templateOf(convention: Convention, path: string): string | undefined {
  return Object.keys(convention.document.paths as object).find((t) =>
    new RegExp(`^${t.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path),
  );
}

/** The document's responses of the operation a request calls; undefined for none. */
function responsesOf(convention: Convention, method: string, path: string): Record<string, unknown> | undefined {
  const paths = convention.document.paths as Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  const template = templateOf(convention, path);
  return template === undefined ? undefined : paths[template]?.[method.toLowerCase()]?.responses;
}

/** An update: PUT or PATCH, or a POST to one item (Stripe's update), its path ending in a parameter. */
const isUpdate = (convention: Convention, r: Omit<Request, "params">): boolean =>
  r.method === "PUT" ||
  r.method === "PATCH" ||
  (r.method === "POST" && /\}$/.test(templateOf(convention, r.path) ?? ""));

/** What the item at a path is now, read through the reference server with the request's headers. */
const readBack = (handle: Handle, request: Omit<Request, "params">): Answer =>
  handle({ ...request, method: "GET", body: undefined, text: "", query: new URLSearchParams() });

/** A success that changes nothing: 204 where the operation documents it, else the item as it is, 200. */
function unchanged(handle: Handle, convention: Convention, request: Omit<Request, "params">): Answer {
  const now = readBack(handle, request);
  if (now.status >= 300) return handle(request);
  const documented = responsesOf(convention, request.method, request.path) ?? {};
  return "204" in documented ? { status: 204 } : { ...now, status: 200 };
}

/** Every string in a JSON value cut to its first 32 characters. */
function cut(value: unknown): unknown {
  if (typeof value === "string") return [...value].slice(0, 32).join("");
  if (Array.isArray(value)) return value.map(cut);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cut(v)]));
}

const FAULTS: readonly Fault[] = [
  {
    name: "forgets-deletes",
    check: "stateful.delete-effective",
    what: "a delete answers success and keeps the item",
    wrap: (handle, convention) => (r) => (r.method === "DELETE" ? unchanged(handle, convention, r) : handle(r)),
  },
  {
    name: "ignores-updates",
    check: "stateful.update-visible",
    what: "a replace or patch answers success and keeps the item as it was",
    wrap: (handle, convention) => (r) => (isUpdate(convention, r) ? unchanged(handle, convention, r) : handle(r)),
  },
  {
    name: "cuts-text",
    check: "stateful.read-back",
    what: "keeps every text to its first 32 characters",
    wrap: (handle) => (r) => {
      if (r.body === undefined || typeof r.body !== "object") return handle(r);
      const body = cut(r.body) as typeof r.body;
      return handle({ ...r, body, text: JSON.stringify(body) });
    },
  },
];

const dir = tempDir("conventions-harness-");
const specOf = (name: string): string => join(dir, `${name}.json`);
beforeAll(() => {
  for (const c of CONVENTIONS) writeFileSync(specOf(c.name), JSON.stringify(c.document, null, 2));
});

/** The stateful sequences of a generated run against a server, the level counted. */
async function judged(convention: Convention, handle: Handle) {
  const contract = await loadContract(specOf(convention.name));
  const server = await serve(handle);
  try {
    return await runConformance({
      target: server.url,
      contract,
      token: CONVENTION_TOKEN,
      noFixtures: true,
      generate: { count: 3 },
      only: ["generated-stateful-*"],
      seed: 5n,
      levels: ["stateful"],
    });
  } finally {
    await server.close();
  }
}

/**
 * Conventions the stateful sequences leave out, and why (docs/checks-and-levels.md): a run has no
 * stateful case for them. The day one gets a case, this test fails until the entry goes.
 */
const NO_SEQUENCES: Readonly<Record<string, string>> = {
  hal: "the item's id is only in its self link (`_links.self.href`): the sequences read ids from a property",
  "google-aip": "the id is inside a resource name (`shelves/{shelf}`)",
  kubernetes: "the id is below the item's top (`metadata.name`)",
  "put-upsert": "no POST makes an item: a PUT at a new id does, and the sequences start with a create",
};

/** Faults the sequences do not reach on a convention, and why: the case passes the broken server. */
const NOT_REACHED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "shallow-routes": {
    "forgets-deletes": "the item's delete is on a shallow path (`/configs/{id}`), outside the nested collection",
    "ignores-updates": "the item's updates are on a shallow path (`/configs/{id}`), outside the nested collection",
  },
};

/** Whether a fault has something to break in a document: a delete, an update. */
function applies(fault: Fault, convention: Convention): boolean {
  const paths = Object.entries(convention.document.paths as Record<string, Record<string, unknown>>);
  const has = (method: string, item = false) =>
    paths.some(([template, ops]) => method in ops && (!item || /\}$/.test(template)));
  if (fault.name === "forgets-deletes") return has("delete");
  if (fault.name === "ignores-updates") return has("put") || has("patch") || has("post", true);
  return true;
}

const countedIn = (results: Awaited<ReturnType<typeof judged>>["results"]) =>
  results.flatMap((r) => r.steps.flatMap((s) => s.findings.filter((f) => f.counts)));

describe.each(CONVENTIONS.map((c) => [c.name, c] as const))("the kit's harness on %s", (name, convention) => {
  if (name in NO_SEQUENCES) {
    it(`has no stateful sequence: ${NO_SEQUENCES[name]}`, async () => {
      const { summary } = await judged(convention, convention.reference());
      expect(summary).toMatchObject({ exitCode: 2, errorCode: "PS_USAGE" });
      expect(summary.runError).toMatch(/matches no case id/);
    });
    return;
  }

  it("passes the reference server, the stateful level counted, no finding that counts", async () => {
    const { summary, results } = await judged(convention, convention.reference());
    expect(countedIn(results).map((f) => `${f.check}: ${f.message}`)).toEqual([]);
    expect(summary.exitCode).toBe(0);
  }, 60_000);

  const faults = FAULTS.filter((f) => applies(f, convention));
  it.each(faults.map((f) => [f.name, f] as const))(
    "catches %s by its intended check",
    async (fault, f) => {
      const { summary, results } = await judged(convention, f.wrap(convention.reference(), convention));
      const checks = countedIn(results).map((x) => x.check);
      if (NOT_REACHED[name]?.[fault] !== undefined) {
        expect(checks).not.toContain(f.check);
        return;
      }
      expect(checks).toContain(f.check);
      expect(summary.exitCode).toBe(1);
    },
    60_000,
  );
});
