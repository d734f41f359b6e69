import { join } from "node:path";
import { expect } from "vitest";
import { readContractDocument } from "../src/contract/load-contract.js";
import { KIT_ROOT } from "../src/paths.js";
import { DEV_TOKEN } from "../src/server/defaults.js";

// One stateful walk through the multi-operation Plant Store, as data: every place that runs
// createMockHandler (Mock Service Worker in Node, a page, a service worker, page.route) sends the same
// requests in order, from an empty store, and must get the same answers.

export const MULTI_OP_FILE = join(KIT_ROOT, "test", "data", "multi-op", "plant-store-multi.yaml");

/** The multi-operation document as a plain JSON object, as a browser gets it (nothing there reads files). */
export function multiOpDocument(): Promise<Record<string, unknown>> {
  return readContractDocument(MULTI_OP_FILE);
}

/** How the engine serves each operation (`METHOD path role resource`), as the start-up report says. */
export const MULTI_OP_SERVED = [
  "GET /plants list plants",
  "POST /plants create plants",
  "GET /plants/{id} read plants",
  "PUT /plants/{id} replace plants",
  "DELETE /plants/{id} delete plants",
];

/** A request the way a page's fetch sends it: the path is joined to a base (an origin, or "" in the page's own). */
export interface ScenarioRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** What the scenario reads of an answer: enough to tell the documented shape, and the exact text. */
export interface ScenarioAnswer {
  readonly status: number;
  readonly contentType: string | null;
  readonly wwwAuthenticate: string | null;
  readonly text: string;
}

export interface ScenarioStep {
  readonly says: string;
  readonly request: ScenarioRequest;
  readonly status: number;
  readonly contentType: string | null;
  /** The exact answer text (ids beyond 2^53 are compared as written, never through a double)... */
  readonly text?: string;
  /** ...or the fields the parsed answer must have (error answers, whose message is free text). */
  readonly json?: Record<string, unknown>;
  readonly wwwAuthenticate?: string;
}

const auth = { authorization: `Bearer ${DEV_TOKEN}` };
const json = { ...auth, "content-type": "application/json" };
/** DELETE /plants/{id} requires X-Request-Id (a uuid). */
const deleting = { ...auth, "x-request-id": "00000000-0000-4000-8000-000000000001" };
const BIG = "9007199254740993"; // 2^53 + 1: a double would read it as ...992
const JSON_TYPE = "application/json";
const PROBLEM = "application/problem+json";

const FERN = `{"name":"Fern","tag":"fern","id":${BIG}}`;
const SWORD_FERN = `{"name":"Sword fern","tag":"nephrolepis","id":${BIG}}`;
const PALM = '{"name":"Palm","tag":"palm","id":2}';
const CACTUS = '{"name":"Cactus","id":3}';

export const MULTI_OP_SCENARIO: readonly ScenarioStep[] = [
  {
    says: "a create answers the documented Plant",
    request: { method: "POST", path: "/plants", headers: json, body: `{"id":${BIG},"name":"Fern","tag":"fern"}` },
    status: 200,
    contentType: JSON_TYPE,
    text: '{"name":"Fern","tag":"fern"}',
  },
  {
    says: "a second create",
    request: { method: "POST", path: "/plants", headers: json, body: '{"id":2,"name":"Palm","tag":"palm"}' },
    status: 200,
    contentType: JSON_TYPE,
    text: '{"name":"Palm","tag":"palm"}',
  },
  {
    says: "a third create",
    request: { method: "POST", path: "/plants", headers: json, body: '{"id":3,"name":"Cactus"}' },
    status: 200,
    contentType: JSON_TYPE,
    text: '{"name":"Cactus"}',
  },
  {
    says: "a read returns the created plant, its id exact",
    request: { method: "GET", path: `/plants/${BIG}`, headers: auth },
    status: 200,
    contentType: JSON_TYPE,
    text: FERN,
  },
  {
    says: "the list holds every created plant, in order",
    request: { method: "GET", path: "/plants", headers: auth },
    status: 200,
    contentType: JSON_TYPE,
    text: `[${FERN},${PALM},${CACTUS}]`,
  },
  {
    says: "the list honours limit",
    request: { method: "GET", path: "/plants?limit=2", headers: auth },
    status: 200,
    contentType: JSON_TYPE,
    text: `[${FERN},${PALM}]`,
  },
  {
    says: "a replace answers the replaced plant",
    request: {
      method: "PUT",
      path: `/plants/${BIG}`,
      headers: json,
      body: '{"name":"Sword fern","tag":"nephrolepis"}',
    },
    status: 200,
    contentType: JSON_TYPE,
    text: SWORD_FERN,
  },
  {
    says: "the next read sees the replace",
    request: { method: "GET", path: `/plants/${BIG}`, headers: auth },
    status: 200,
    contentType: JSON_TYPE,
    text: SWORD_FERN,
  },
  {
    says: "a delete answers the documented bodiless 204",
    request: { method: "DELETE", path: `/plants/${BIG}`, headers: deleting },
    status: 204,
    contentType: null,
    text: "",
  },
  {
    says: "a read of the deleted plant answers the documented 404 (problem details)",
    request: { method: "GET", path: `/plants/${BIG}`, headers: auth },
    status: 404,
    contentType: PROBLEM,
    json: { title: "Not Found", status: 404, code: "PS_ITEM_NOT_FOUND" },
  },
  {
    says: "the list no longer holds the deleted plant",
    request: { method: "GET", path: "/plants", headers: auth },
    status: 200,
    contentType: JSON_TYPE,
    text: `[${PALM},${CACTUS}]`,
  },
  {
    says: "an invalid body answers the create's documented 400 (the Error shape) with its violations",
    request: { method: "POST", path: "/plants", headers: json, body: '{"id":"7","name":"Bad"}' },
    status: 400,
    contentType: JSON_TYPE,
    json: { error: 400, code: "PS_BODY_INVALID", violations: [{ location: "body/id", keyword: "type" }] },
  },
  {
    says: "a request without credentials answers 401 with its challenge",
    request: { method: "GET", path: "/plants", headers: {} },
    status: 401,
    contentType: PROBLEM,
    json: { status: 401, code: "PS_UNAUTHORIZED" },
    wwwAuthenticate: 'Bearer realm="plantstore"',
  },
  {
    says: "the refused requests changed nothing",
    request: { method: "GET", path: "/plants", headers: auth },
    status: 200,
    contentType: JSON_TYPE,
    text: `[${PALM},${CACTUS}]`,
  },
];

/** Checks one answer against its step; each message names the step, so a failure says where the walk broke. */
export function expectAnswer(step: ScenarioStep, answer: ScenarioAnswer): void {
  const where = `${step.request.method} ${step.request.path}: ${step.says}`;
  expect(answer.status, where).toBe(step.status);
  expect(answer.contentType, where).toBe(step.contentType);
  if (step.text !== undefined) expect(answer.text, where).toBe(step.text);
  if (step.json !== undefined) expect(JSON.parse(answer.text), where).toMatchObject(step.json);
  if (step.wwwAuthenticate !== undefined) expect(answer.wwwAuthenticate, where).toBe(step.wwwAuthenticate);
}

/** Sends every step in order with `send` and checks each answer as it comes. */
export async function walkScenario(send: (request: ScenarioRequest) => Promise<ScenarioAnswer>): Promise<void> {
  for (const step of MULTI_OP_SCENARIO) expectAnswer(step, await send(step.request));
}

/** Reads a fetch Response the way the scenario compares it. */
export async function scenarioAnswer(res: Response): Promise<ScenarioAnswer> {
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    wwwAuthenticate: res.headers.get("www-authenticate"),
    text: await res.text(),
  };
}
