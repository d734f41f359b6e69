import type { CompiledOperation, Contract, RouteResult } from "../contract/index.js";
import { checkParameters, checkRequest, describeViolation, escapePointer } from "../contract/index.js";
import { finding, judge, preview, type CheckId, type Finding } from "../harness/checks.js";
import type { Expectation } from "../harness/case-types.js";
import type { ClientCheckId, ProxyNoteId } from "./types.js";

/** A finding before the proxy has said which side it blames and whether it counts. */
export interface RawFinding extends Omit<Finding, "check"> {
  readonly check: CheckId | ClientCheckId | ProxyNoteId;
}

/** A request as the proxy saw it. */
export interface ObservedRequest {
  readonly method: string;
  /** The path without the query, as the contract's paths are written. */
  readonly path: string;
  /** The query, without `?` ("" when none). */
  readonly query?: string;
  /** Lower-case names; repeated fields joined with ", " (RFC 9110 section 5.3). */
  readonly headers: Readonly<Record<string, string>>;
  /** The whole body; undefined when it was over the recording cap or did not arrive whole. */
  readonly body: Buffer | undefined;
  /** Why the body is undefined, for the note that says it was not judged. */
  readonly bodyNotJudged?: string;
}

export interface RequestVerdict {
  /** The operation the request asks for; undefined when the contract has none for it. */
  readonly operation: CompiledOperation | undefined;
  readonly findings: readonly RawFinding[];
}

/**
 * Whether a request is acceptable by the contract: the one place the proxy judges requests (an
 * undocumented path or method; the body's presence, media type, charset, UTF-8, JSON and schema).
 * Acceptability itself is the contract's checkRequest, as for the server and the harness.
 */
export function judgeRequest(
  contract: Contract,
  request: ObservedRequest,
  specSource: string,
  redact: (t: string) => string,
): RequestVerdict {
  const route = contract.route(request.method, request.path);
  if (route.kind !== "found")
    return { operation: undefined, findings: [unrouted(contract, route, request, specSource, redact)] };
  const operation = route.operation;
  // Parameters first: they are judged whatever happened to the body.
  const parameterFindings = parameterFinding(operation, request, specSource, redact);
  if (request.body === undefined) {
    const why = request.bodyNotJudged ?? "the body was not recorded";
    return {
      operation,
      findings: [
        ...parameterFindings,
        finding({
          check: "proxy.not-judged",
          severity: "note",
          message: `request body not judged: ${why}`,
          expected: "a recorded body",
          received: why,
          rule: "plantstore proxy",
        }),
      ],
    };
  }
  return {
    operation,
    findings: [...parameterFindings, ...bodyFindings(operation, request, request.body, specSource, redact)],
  };
}

/** The finding of a request no operation of the contract takes: its path is none, or its method none there. */
function unrouted(
  contract: Contract,
  route: Exclude<RouteResult, { kind: "found" }>,
  request: ObservedRequest,
  specSource: string,
  redact: (t: string) => string,
): RawFinding {
  const shown = `${request.method} ${request.path}`;
  if (route.kind === "not-found") {
    const paths = [...new Set(contract.operations.map((o) => o.pathTemplate))].join(", ");
    return finding({
      check: "request.path",
      severity: "failure",
      message: `${redact(request.path)} is not a path of the contract`,
      expected: paths,
      received: redact(shown),
      rule: `${specSource}#/paths`,
    });
  }
  const template =
    contract.operations.find((o) => o.matchPath(request.path) !== undefined)?.pathTemplate ?? request.path;
  return finding({
    check: "request.method",
    severity: "failure",
    message: `${request.method} is not documented for ${template}`,
    expected: route.allowed.join(" or "),
    received: redact(shown),
    rule: `${specSource}#/paths/${escapePointer(template)}`,
  });
}

/** The finding of the first parameter the request gets wrong, if any. */
function parameterFinding(
  operation: CompiledOperation,
  request: ObservedRequest,
  specSource: string,
  redact: (t: string) => string,
): RawFinding[] {
  const parameter = checkParameters(operation, {
    headers: request.headers,
    path: request.path,
    query: request.query ?? "",
  });
  return parameter === undefined
    ? []
    : [
        finding({
          check: "request.parameter",
          severity: "failure",
          message: `the request breaks the contract: ${redact(parameter.detail)}`,
          expected: "a request the contract accepts",
          received: redact(`${request.method} ${request.path}${request.query ? `?${request.query}` : ""}`),
          rule: `${specSource}#${parameter.parameter.pointer}`,
        }),
      ];
}

/** The findings of a recorded body: one for each way it breaks the contract. */
function bodyFindings(
  operation: CompiledOperation,
  request: ObservedRequest,
  body: Buffer,
  specSource: string,
  redact: (t: string) => string,
): RawFinding[] {
  const checked = checkRequest(operation, { headers: request.headers, body });
  // A violation's location names the body's own keys (evidence), its message the schema's rule; other
  // problems quote the request's media type, charset or JSON.
  const problems = checked.ok
    ? []
    : checked.reason === "schema"
      ? checked.violations.map((v) => describeViolation({ ...v, location: redact(v.location) }))
      : [redact(checked.detail)];
  if (problems.length === 0) return [];
  const rule = `${specSource}#${operation.requestBody?.pointer ?? operation.pointer}`;
  const type = request.headers["content-type"];
  const received = `${type === undefined ? "(no Content-Type)" : redact(type)}: ${preview(body, 500, redact)}`;
  return problems.map((p) =>
    finding({
      check: "request.body",
      severity: "failure",
      message: `the request breaks the contract: ${p}`,
      expected: "a request the contract accepts",
      received,
      rule,
    }),
  );
}

/** The harness's checks that need no fixture: they judge an answer by the contract alone. */
const RESPONSE_CHECKS: ReadonlySet<CheckId> = new Set<CheckId>([
  "status.no-5xx",
  "response.media-type",
  "response.json",
  "response.schema",
  "response.headers",
  "status.undocumented",
]);
/** Those that need no body, for answers whose body was not recorded (or has none, as for HEAD). */
const BODYLESS_CHECKS: ReadonlySet<CheckId> = new Set<CheckId>([
  "status.no-5xx",
  "response.media-type",
  "response.headers",
  "status.undocumented",
]);
const responseCheck = (id: CheckId): boolean => RESPONSE_CHECKS.has(id);
const bodylessCheck = (id: CheckId): boolean => BODYLESS_CHECKS.has(id);

/**
 * The proxy does not know what a client meant by a request, so it cannot say which 4xx the client
 * should get. With any kind but "valid", status.undocumented keeps an undocumented 4xx a note (the
 * contract leaves error conditions open) and an undocumented 2xx or 3xx a warning; the four other
 * response checks ignore the expectation.
 */
const NEUTRAL_EXPECTATION: Expectation = { kind: "invalid" };

/** An answer as the proxy saw it; `body` is undefined when it was not recorded whole, or decoded. */
export interface ObservedResponse {
  readonly status: number;
  /** Lower-case names; repeated fields joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
  readonly bodyNotJudged?: string;
  readonly durationMs: number;
}

/** Judges an answer with the harness's response checks; body checks only when the body was recorded. */
export function judgeResponse(
  operation: CompiledOperation,
  response: ObservedResponse,
  specSource: string,
  redact: (t: string) => string,
): RawFinding[] {
  const findings: RawFinding[] = judge(
    {
      operation,
      redact,
      specSource,
      expect: NEUTRAL_EXPECTATION,
      result: {
        ok: true,
        response: { status: response.status, headers: response.headers, body: response.body ?? Buffer.alloc(0) },
        durationMs: response.durationMs,
      },
      earlierStatuses: [],
    },
    response.body === undefined ? bodylessCheck : responseCheck,
  );
  if (response.body === undefined && response.bodyNotJudged !== undefined) {
    findings.push(
      finding({
        check: "proxy.not-judged",
        severity: "note",
        message: `response body not judged: ${response.bodyNotJudged}`,
        expected: "a recorded body",
        received: response.bodyNotJudged,
        rule: "plantstore proxy",
      }),
    );
  }
  return findings;
}
