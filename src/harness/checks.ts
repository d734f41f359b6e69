import type { CheckedResponse, CompiledOperation, Violation } from "../contract/index.js";
import { checkResponse, checkResponseHeaders, describeViolation, responseMediaTypeDetail } from "../contract/index.js";
import type { Expectation } from "./case-types.js";
import type { ExchangeResult } from "./http-client.js";
import type { Level } from "./levels.js";
import { STATEFUL_CHECK_IDS } from "./stateful-check-ids.js";

/**
 * How a finding counts: a failure breaks the contract; a warning breaks a rule beyond it (its level),
 * counted only when that level runs (--level, --strict); a note informs.
 */
export type Severity = "failure" | "warning" | "note";

export interface Finding {
  /** The stable id of the check that made it. */
  readonly check: CheckId;
  readonly severity: Severity;
  /** The conformance level whose rule it is: `contract` for failures and notes, another for warnings. */
  readonly level: Level;
  readonly message: string;
  readonly expected: string;
  readonly received: string;
  /** Where the rule comes from: a JSON pointer into the spec, or an RFC section. */
  readonly rule: string;
}

export interface CheckContext {
  readonly operation: CompiledOperation;
  /**
   * Masks secrets in evidence (a Redactor): applied to what the target sent (bodies, header values, a
   * Content-Type, the contract's descriptions of what is wrong with them) where a finding quotes it,
   * before evidence is shortened, so no part of a secret survives; the checks' own words are not masked.
   */
  readonly redact?: (text: string) => string;
  /** The spec's location, to prefix JSON pointers in rules. */
  readonly specSource: string;
  readonly expect: Expectation;
  readonly result: ExchangeResult;
  /** Statuses the earlier steps of the same case received (undefined where none came). */
  readonly earlierStatuses: readonly (number | undefined)[];
}

/** What each check reads: the exchange, and its answer checked against the contract once, by judge(). */
export interface JudgedContext extends CheckContext {
  /** The answer by the contract (contract/acceptability.ts); undefined when no answer came. */
  readonly answer: CheckedResponse | undefined;
}

export const CHECK_IDS = [
  "response.received",
  "status.no-5xx",
  "response.media-type",
  "response.json",
  "response.schema",
  "response.headers",
  "valid.accepted",
  "invalid.rejected",
  "auth.rejected",
  "auth.challenge",
  "duplicate.answer",
  "status.expected",
  "status.undocumented",
  ...STATEFUL_CHECK_IDS,
] as const;
export type CheckId = (typeof CHECK_IDS)[number];

export interface Check {
  readonly id: CheckId;
  /** One sentence: the rule the check enforces, as the README lists it. */
  readonly summary: string;
  run(ctx: JudgedContext): Finding[];
}

const ref = (ctx: CheckContext, pointer: string): string => `${ctx.specSource}#${pointer}`;
/** Masks evidence a finding quotes. */
const masked = (ctx: CheckContext, text: string): string => (ctx.redact === undefined ? text : ctx.redact(text));
const statusOf = (ctx: CheckContext): number | undefined => (ctx.result.ok ? ctx.result.response.status : undefined);
const classOf = (status: number): number => Math.floor(status / 100);
/** A finding as data; generic in its check id, so the proxy's own ids (client side, notes) use it too. */
export const finding = <C extends string = CheckId>(
  fields: Omit<Finding, "check" | "level"> & { readonly check: C; readonly level?: Level },
): Omit<Finding, "check"> & { readonly check: C } => {
  const { check, severity, level = "contract", message, expected, received, rule } = fields;
  return { check, severity, level, message, expected, received, rule };
};
/** The level an expectation's rule belongs to: the fixture names one beyond the contract (expect.level). */
const expectationLevel = (ctx: CheckContext): Level => ctx.expect.level ?? "contract";
/** A rule of the contract is a failure; a rule of another level a warning, counted when that level runs. */
const expectationSeverity = (ctx: CheckContext): Severity =>
  expectationLevel(ctx) === "contract" ? "failure" : "warning";

/** Statuses the operation documents in the 2xx class, for messages. */
function documentedSuccess(op: CompiledOperation): string[] {
  return [...op.responses.keys()].filter((s) => s.startsWith("2"));
}

/** The evidence: status, media type and the start of the body. */
function received(ctx: CheckContext): string {
  if (!ctx.result.ok) return ctx.result.failure.message;
  const r = ctx.result.response;
  const body = r.body.length === 0 ? "" : `: ${preview(r.body, 200, ctx.redact)}`;
  const type = r.headers["content-type"];
  return `${r.status}${type === undefined ? "" : ` ${masked(ctx, type)}`}${body}`;
}

export const CHECKS: readonly Check[] = [
  {
    id: "response.received",
    summary: "The target answers with a complete, well-formed HTTP response within the timeout and the read cap.",
    run(ctx) {
      if (ctx.result.ok || ctx.result.failure.kind === "unreachable" || ctx.result.failure.kind === "tls") return [];
      return [
        finding({
          check: "response.received",
          severity: "failure",
          message: `no usable answer: ${ctx.result.failure.kind}`,
          expected: "a complete HTTP/1.1 response",
          received: ctx.result.failure.message,
          rule: "RFC 9112 (HTTP/1.1 message syntax)",
        }),
      ];
    },
  },
  {
    id: "status.no-5xx",
    summary: "No request, valid or not, gets a 5xx: the contract documents none.",
    run(ctx) {
      const s = statusOf(ctx);
      if (s === undefined || classOf(s) !== 5) return [];
      return [
        finding({
          check: "status.no-5xx",
          severity: "failure",
          message: `server error ${s}`,
          expected: "no 5xx status",
          received: received(ctx),
          rule: ref(ctx, `${ctx.operation.pointer}/responses`),
        }),
      ];
    },
  },
  {
    id: "response.media-type",
    summary: "A documented status comes with one of its documented media types (parameters such as charset allowed).",
    run(ctx) {
      const answer = ctx.answer;
      if (answer?.ok !== false || answer.reason !== "media-type") return [];
      const documented = [...answer.response.content.keys()].join(" or ");
      const received = answer.contentType === undefined ? "(no Content-Type)" : masked(ctx, answer.contentType);
      const rule = ref(ctx, `${answer.response.pointer}/content`);
      // The contract's sentence, with the Content-Type the target sent masked: that part is evidence.
      const type = answer.contentType === undefined ? undefined : masked(ctx, answer.contentType);
      const detail = responseMediaTypeDetail(statusOf(ctx) ?? 0, answer.response, type);
      return [
        finding({
          check: "response.media-type",
          severity: "failure",
          message: detail,
          expected: documented,
          received,
          rule,
        }),
      ];
    },
  },
  {
    id: "response.json",
    summary: "A documented JSON body is UTF-8 JSON (parsed exactly, without losing precision).",
    run(ctx) {
      const answer = ctx.answer;
      if (!ctx.result.ok || answer?.ok !== false || (answer.reason !== "utf-8" && answer.reason !== "json")) return [];
      const message = `the body is not JSON: ${answer.reason === "utf-8" ? "not UTF-8" : masked(ctx, answer.syntax)}`;
      const evidence = preview(ctx.result.response.body, 500, ctx.redact);
      return [
        finding({
          check: "response.json",
          severity: "failure",
          message,
          expected: "a JSON body",
          received: evidence,
          rule: ref(ctx, answer.entry.pointer),
        }),
      ];
    },
  },
  {
    id: "response.schema",
    summary: "A documented body validates against its schema, formats included (int32 and int64 ranges exactly).",
    run(ctx) {
      const answer = ctx.answer;
      if (!ctx.result.ok || answer?.ok !== false || answer.reason !== "schema") return [];
      const { status, body } = ctx.result.response;
      const evidence = preview(body, 500, ctx.redact);
      const rule = ref(ctx, `${answer.entry.pointer}/schema`);
      // A violation's location names the body's own keys (evidence); its message is the schema's rule.
      const message = (v: Violation): string =>
        `the ${status} body breaks its schema: ${describeViolation({ ...v, location: masked(ctx, v.location) })}`;
      return answer.violations.map((v) =>
        finding({
          check: "response.schema",
          severity: "failure",
          message: message(v),
          expected: v.message,
          received: evidence,
          rule,
        }),
      );
    },
  },
  {
    id: "valid.accepted",
    summary:
      "A valid request with valid credentials gets the documented success status (for createPlant: 200 with a Plant).",
    run(ctx) {
      const s = statusOf(ctx);
      if (ctx.expect.kind !== "valid" || s === undefined) return [];
      const success = documentedSuccess(ctx.operation);
      // A documented 1xx or 3xx (an operation whose answer is a redirect, or 300 Multiple Choices) is its success too.
      const documentedOther =
        classOf(s) !== 2 &&
        classOf(s) < 4 &&
        (ctx.operation.responses.has(String(s)) || ctx.operation.responses.has(`${classOf(s)}XX`));
      const ok =
        documentedOther ||
        (classOf(s) === 2 && (success.length === 0 || ctx.operation.responseFor(s)?.status.startsWith("2") === true));
      if (ok) return [];
      if (ctx.expect.missingOk === true && (s === 404 || s === 410)) {
        return [
          finding({
            check: "valid.accepted",
            severity: "note",
            message: `got ${s}: the request names a resource the harness could not know exists, so that is an expected answer`,
            expected: success.join(" or ") || "2xx",
            received: received(ctx),
            rule: ref(ctx, ctx.operation.pointer),
          }),
        ];
      }
      const from = ctx.expect.existingAnswerFrom;
      const repeated = from === undefined ? undefined : ctx.earlierStatuses[from];
      if (repeated !== undefined && classOf(repeated) === 4 && s === repeated) {
        return [
          finding({
            check: "valid.accepted",
            severity: "note",
            message: `got ${s}, the target's answer to a repeated id: this fixed id already existed (from an earlier run), which the contract allows`,
            expected: success.join(" or ") || "2xx",
            received: received(ctx),
            rule: ref(ctx, ctx.operation.pointer),
          }),
        ];
      }
      const also =
        repeated !== undefined && classOf(repeated) === 4
          ? ` (nor ${repeated}, the target's answer to a repeated id, which would mean the id already existed)`
          : "";
      if (classOf(s) === 5) return []; // status.no-5xx reports it
      // Where the contract shows no constraint, a server may have one: refusing is not a breach.
      const refused = ctx.expect.refusable === true && classOf(s) === 4;
      const severity = refused ? "warning" : expectationSeverity(ctx);
      const level = refused ? "accepts-all-valid" : expectationLevel(ctx);
      const why = refused
        ? " (the contract shows no constraint here, so a refusal is allowed; the level accepts-all-valid counts it)"
        : "";
      return [
        finding({
          check: "valid.accepted",
          severity,
          message: `a valid request got ${s}${also}${why}`,
          expected: success.length === 0 ? "a 2xx status" : success.join(" or "),
          received: received(ctx),
          rule: ref(
            ctx,
            ctx.operation.responses.get(success[0] ?? "")?.pointer ?? `${ctx.operation.pointer}/responses`,
          ),
          level,
        }),
      ];
    },
  },
  {
    id: "invalid.rejected",
    summary: "A request the spec rejects (a parameter, the body or its media type) gets a 4xx.",
    run(ctx) {
      const s = statusOf(ctx);
      if (ctx.expect.kind !== "invalid" || s === undefined || classOf(s) === 4 || classOf(s) === 5) return [];
      return [
        finding({
          check: "invalid.rejected",
          severity: expectationSeverity(ctx),
          message: `a request the spec rejects got ${s}`,
          expected: "a 4xx status",
          received: received(ctx),
          rule: ref(ctx, ctx.operation.requestBody?.pointer ?? ctx.operation.pointer),
          level: expectationLevel(ctx),
        }),
      ];
    },
  },
  {
    id: "auth.rejected",
    summary: "A request without valid credentials never gets a 2xx.",
    run(ctx) {
      const s = statusOf(ctx);
      if (ctx.expect.kind !== "unauthorised" || s === undefined || classOf(s) !== 2) return [];
      return [
        finding({
          check: "auth.rejected",
          severity: expectationSeverity(ctx),
          message: `a request without valid credentials got ${s}`,
          expected: "not 2xx (nor 5xx)",
          received: received(ctx),
          rule: ref(ctx, ctx.operation.pointerOfSecurity),
          level: expectationLevel(ctx),
        }),
      ];
    },
  },
  {
    id: "auth.challenge",
    summary:
      "A 401 carries WWW-Authenticate (RFC 9110 section 15.5.2); level http-rfc, as the rule is HTTP's, not the contract's.",
    run(ctx) {
      if (
        !ctx.result.ok ||
        ctx.result.response.status !== 401 ||
        ctx.result.response.headers["www-authenticate"] !== undefined
      )
        return [];
      return [
        finding({
          check: "auth.challenge",
          severity: "warning",
          message: "a 401 without WWW-Authenticate",
          expected: "a WWW-Authenticate header naming the Bearer scheme",
          received: "no WWW-Authenticate header",
          rule: "RFC 9110 section 15.5.2; RFC 6750 section 3",
          level: "http-rfc",
        }),
      ];
    },
  },
  {
    id: "duplicate.answer",
    summary: "A create with an id that already exists gets 2xx or 4xx; the contract leaves the choice open.",
    run(ctx) {
      const s = statusOf(ctx);
      if (
        ctx.expect.kind !== "duplicate" ||
        s === undefined ||
        classOf(s) === 2 ||
        classOf(s) === 4 ||
        classOf(s) === 5
      )
        return [];
      return [
        finding({
          check: "duplicate.answer",
          severity: expectationSeverity(ctx),
          message: `a repeated id got ${s}`,
          expected: "2xx or 4xx",
          received: received(ctx),
          rule: ref(ctx, ctx.operation.pointer),
          level: expectationLevel(ctx),
        }),
      ];
    },
  },
  {
    id: "status.expected",
    summary: "Where a fixture names an exact status, the answer has it.",
    run(ctx) {
      const s = statusOf(ctx);
      if (ctx.expect.status === undefined || s === undefined || s === ctx.expect.status) return [];
      return [
        finding({
          check: "status.expected",
          severity: expectationSeverity(ctx),
          message: `expected status ${ctx.expect.status}, got ${s}`,
          expected: String(ctx.expect.status),
          received: received(ctx),
          rule: "the fixture's expect.status",
          level: expectationLevel(ctx),
        }),
      ];
    },
  },
  {
    id: "response.headers",
    summary:
      "An answer carries the headers its documented response requires, and each documented header it carries is valid by its schema.",
    run(ctx) {
      const s = statusOf(ctx);
      if (s === undefined || !ctx.result.ok) return [];
      const response = ctx.operation.responseFor(s);
      if (response === undefined || response.headers.size === 0) return [];
      return checkResponseHeaders(response, ctx.result.response.headers).map((p) =>
        finding({
          check: "response.headers",
          severity: "failure",
          message: masked(ctx, p.detail),
          expected: p.header.required
            ? `a ${p.header.name} header valid by its schema`
            : `a valid ${p.header.name} header`,
          received:
            p.received === undefined ? `no ${p.header.name} header` : `${p.header.name}: ${masked(ctx, p.received)}`,
          rule: ref(ctx, p.header.pointer),
        }),
      );
    },
  },
  {
    id: "status.undocumented",
    summary:
      "A status the operation does not document breaks level documented-statuses, except a 4xx where the contract is silent (credentials, repeated ids, conditions for errors), which is a note.",
    run(ctx) {
      const s = statusOf(ctx);
      if (s === undefined || ctx.answer?.ok !== false || ctx.answer.reason !== "status" || classOf(s) === 5) return [];
      const from = ctx.expect.existingAnswerFrom;
      const existed = from !== undefined && ctx.earlierStatuses[from] === s;
      const missing = ctx.expect.missingOk === true && (s === 404 || s === 410);
      const silent = classOf(s) === 4 && (ctx.expect.kind !== "valid" || existed || missing);
      const where = ref(ctx, `${ctx.operation.pointer}/responses`);
      if (silent) {
        return [
          finding({
            check: "status.undocumented",
            severity: "note",
            message: `${s} is not documented; the contract leaves this answer open, so it is not a failure`,
            expected: expectedOfSilent(ctx),
            received: received(ctx),
            rule: where,
          }),
        ];
      }
      return [
        finding({
          check: "status.undocumented",
          severity: "warning",
          message: `${s} is not documented for this operation`,
          expected: [...ctx.operation.responses.keys()].join(" or "),
          received: received(ctx),
          rule: where,
          level: "documented-statuses",
        }),
      ];
    },
  },
];

/** The start of a body, for evidence: secrets masked first, then shortened. */
export function preview(body: Buffer | undefined, max = 500, redact: (t: string) => string = (t) => t): string {
  if (body === undefined || body.length === 0) return "(empty body)";
  const text = redact(body.toString("utf8"));
  return text.length > max ? `${text.slice(0, max)}... (${body.length} bytes)` : text;
}

const EXPECTATION_CHECKS = new Set<CheckId>([
  "valid.accepted",
  "invalid.rejected",
  "auth.rejected",
  "duplicate.answer",
  "status.expected",
]);

/**
 * Runs every check on one exchange; an undocumented status already failed by an expectation is not
 * reported twice. The answer is checked against the contract here, once, for every check to read.
 */
export function judge(ctx: CheckContext, only?: (id: CheckId) => boolean): Finding[] {
  const answer = ctx.result.ok ? checkResponse(ctx.operation, ctx.result.response) : undefined;
  // Member by member: on Node 20 a spread of a context costs more than most checks.
  const judged: JudgedContext = {
    operation: ctx.operation,
    redact: ctx.redact,
    specSource: ctx.specSource,
    expect: ctx.expect,
    result: ctx.result,
    earlierStatuses: ctx.earlierStatuses,
    answer,
  };
  const findings: Finding[] = [];
  for (const c of CHECKS) if (only === undefined || only(c.id)) for (const f of c.run(judged)) findings.push(f);
  const statusFailed = findings.some((f) => EXPECTATION_CHECKS.has(f.check) && f.severity !== "note");
  const judgedFindings = statusFailed ? findings.filter((f) => f.check !== "status.undocumented") : findings;
  return documentFault(ctx, judgedFindings);
}

/** Checks a success or a server error fails when the contract's success answers accept no value. */
const UNKEEPABLE = new Set<CheckId>([
  "status.no-5xx",
  "response.media-type",
  "response.json",
  "response.schema",
  "valid.accepted",
  "status.expected",
  "status.undocumented",
]);

/**
 * An operation no server can answer with a success its contract accepts (every documented 2xx body
 * schema accepts no value: ShipEngine's `additionalProperties: false` beside properties only in
 * `allOf`): a success or a server error on it is the document's fault, not the target's. Its failures
 * become notes that name the rule, so the verdict never blames the target for it.
 */
function documentFault(ctx: CheckContext, findings: Finding[]): Finding[] {
  const status = ctx.result.ok ? ctx.result.response.status : undefined;
  if (status === undefined || (classOf(status) !== 2 && classOf(status) !== 5)) return findings;
  if (!findings.some((f) => f.severity === "failure" && UNKEEPABLE.has(f.check))) return findings;
  const fault = ctx.operation.successUnsatisfiable();
  if (fault === undefined) return findings;
  const why = `the contract's success answers of ${ctx.operation.operationId} accept no value (${fault.reason}), so no server can keep it`;
  return findings.map((f) =>
    f.severity === "failure" && UNKEEPABLE.has(f.check)
      ? { ...f, severity: "note", message: `${f.message}; not judged: ${why}`, rule: ref(ctx, fault.pointer) }
      : f,
  );
}

/** What a request the contract is silent about may get, in words that fit the request (its expectation). */
function expectedOfSilent(ctx: CheckContext): string {
  const documented = [...ctx.operation.responses.keys()].join(", ");
  switch (ctx.expect.kind) {
    case "unauthorised":
      return "a 4xx refusal (401, 403 or 400: the contract does not say which), never a success";
    case "invalid":
      return `a 4xx refusal (${
        documented
          .split(", ")
          .filter((k) => k.startsWith("4"))
          .join(", ") || "any 4xx"
      } documented)`;
    case "duplicate":
      return "a 2xx or any 4xx: the contract leaves a repeated id open";
    default:
      return ctx.expect.missingOk === true
        ? `a status of ${documented}, or 404 or 410 for a resource that may not exist`
        : `a status of ${documented}, or the 4xx an earlier step got for the same id (it existed already)`;
  }
}

/**
 * How much a finding says of the cause, most first: what the request's expectation says went wrong (a
 * request the contract rejects got 200; a valid one was refused), then what a sequence shows, then a
 * server error, then the shape of the answer (which may only follow from the first). A case's
 * headline, in every report, is its counted finding that says the most.
 */
const CAUSE_RANK: readonly (CheckId | "stateful")[] = [
  "invalid.rejected",
  "auth.rejected",
  "valid.accepted",
  "duplicate.answer",
  "status.expected",
  "stateful",
  "status.no-5xx",
  "response.received",
  "response.media-type",
  "response.json",
  "response.schema",
  "response.headers",
  "auth.challenge",
  "status.undocumented",
];

const rankOf = (check: CheckId): number => {
  const at = CAUSE_RANK.indexOf(check.startsWith("stateful.") ? "stateful" : check);
  return at < 0 ? CAUSE_RANK.length : at;
};

/** Findings ordered cause first (CAUSE_RANK), ties in the order they were made. */
export function causeFirst<T extends { readonly check: CheckId }>(findings: readonly T[]): T[] {
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rankOf(a.f.check) - rankOf(b.f.check) || a.i - b.i)
    .map(({ f }) => f);
}
