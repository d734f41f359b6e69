// Chains the document's OpenAPI links describe (OAS 3.0.3 section 4.7.20, the Link Object): from an
// operation whose answer has links, each link is followed with the parameters its runtime expressions
// take from that answer (or its request), then the target's own links, wherever they lead, each
// operation once. A target that answers 404 or 410 to what a create's answer named is
// `stateful.link-available`; every step is judged by the contract as any case's.
import { randomBytes } from "node:crypto";
import type { CompiledOperation, Contract } from "../../contract/index.js";
import {
  documentResolver,
  followRefs,
  locateRef,
  producerFor,
  resourceModel,
  type Resolve,
} from "../../contract/index.js";
import type { ObservedStep } from "../case-runner.js";
import { finding, type Finding } from "../checks.js";
import { valueFrom } from "../step-values.js";
import { Random } from "../fresh.js";
import type { CaseResult, StepResult } from "../results.js";
import { sendStep, sequenceCase, type StatefulEnv } from "./send.js";
import type { StepRequest } from "./steps.js";
import { plainBody, plainParameters } from "./values.js";

/** A chain of links, from the operation whose answer holds the first. */
export interface LinkChain {
  readonly caseId: string;
  readonly start: CompiledOperation;
}

/** One link of an operation's success answer: its target and the values of the target's parameters. */
interface Link {
  readonly name: string;
  readonly target: CompiledOperation;
  /** By the target's parameter key (`path:id`): a runtime expression, or a constant. */
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** Steps a chain sends at most, the start (and what makes its resource) included. */
const MAX_STEPS = 8;

type Json = Record<string, unknown>;

/** The link chains of a contract: one per operation (`usable` by the generator) whose success answers have links. */
export function linkChains(contract: Contract, usable: (op: CompiledOperation) => boolean): LinkChain[] {
  return contract.operations
    .filter((op) => usable(op) && linksOf(contract, op).some((l) => usable(l.target)))
    .map((start) => ({ caseId: `generated-stateful-links-${start.operationId}`, start }));
}

/** The links of an operation's 2xx answers whose target the contract has (by operationId or operationRef). */
function linksOf(contract: Contract, op: CompiledOperation): Link[] {
  const doc = contract.document;
  const resolve: Resolve = documentResolver(doc);
  const out: Link[] = [];
  for (const response of op.responses.values()) {
    if (!response.status.startsWith("2")) continue;
    const links = ((locateRef(doc, response.pointer)?.value ?? {}) as Json).links as Json | undefined;
    for (const [name, raw] of Object.entries(links ?? {})) {
      const link = (followRefs(raw, resolve) ?? {}) as Json;
      const target = contract.operations.find(
        (o) =>
          o.operationId === link.operationId ||
          (typeof link.operationRef === "string" && link.operationRef === `#${o.pointer}`),
      );
      if (target === undefined) continue;
      const parameters: Record<string, unknown> = {};
      for (const [key, value] of Object.entries((link.parameters ?? {}) as Json)) {
        const [where, bare] = /^(path|query|header|cookie)\./.test(key) ? key.split(/\.(.*)/s) : [undefined, key];
        const p = target.parameters.find((x) => x.name === bare && (where === undefined || x.in === where));
        if (p !== undefined) parameters[`${p.in}:${p.name}`] = value;
      }
      out.push({ name, target, parameters });
    }
  }
  return out;
}

/** A link's parameter value: a runtime expression read from the source step's exchange, else the constant itself. */
function linkValue(value: unknown, source: ObservedStep): unknown {
  if (typeof value !== "string" || !value.startsWith("$")) return value;
  const r = source.result;
  const response = r.ok ? { status: r.response.status, headers: r.response.headers, body: r.response.body } : undefined;
  return valueFrom([{ request: source.prepared, response }], 1, value, 0);
}

const ON_ITEM = { kind: "valid", refusable: true, missingOk: true } as const;

/** What a chain has sent so far. */
interface ChainState {
  readonly steps: StepResult[];
  readonly labels: string[];
  readonly notes: string[];
  readonly visited: Set<CompiledOperation>;
  error: string | undefined;
}

/** The case of a link chain: its start (on a resource made first, where its path needs one), then every link followed. */
export async function linkCase(env: StatefulEnv, chain: LinkChain): Promise<CaseResult> {
  const started = performance.now();
  const random = new Random(BigInt(`0x${randomBytes(8).toString("hex")}`));
  const state: ChainState = { steps: [], labels: [], notes: [], visited: new Set(), error: undefined };
  const send = (label: string, request: StepRequest, judge: (o: ObservedStep) => readonly Finding[]) =>
    sendAndRecord(env, chain, state, random, label, request, judge);
  const producer = producerFor(env.contract, chain.start);
  let before: ObservedStep | undefined;
  if (producer !== undefined) {
    const op = producer.operation;
    const request = {
      op,
      parameters: plainParameters(env.contract, op),
      body: plainBody(env.contract, op, random),
      expect: ON_ITEM,
    };
    before = await send(
      `${producer.operation.operationId} (makes what ${chain.start.operationId} acts on)`,
      request,
      () => [],
    );
  }
  const parameters = plainParameters(env.contract, chain.start);
  if (producer !== undefined && before !== undefined)
    try {
      parameters[`path:${producer.parameter.name}`] = linkValue(producer.expression, before);
    } catch {
      state.notes.push(`${producer.operation.operationId}'s answer holds no ${producer.parameter.name}`);
    }
  const body = plainBody(env.contract, chain.start, random);
  const start = await send(chain.start.operationId, { op: chain.start, parameters, body, expect: ON_ITEM }, () => []);
  if (start !== undefined) await follow(env, state, send, start, random);
  const labels = state.labels;
  return sequenceCase({
    caseId: chain.caseId,
    operation: chain.start.operationId,
    description: `the links from ${chain.start.operationId}, followed: ${labels.join(" -> ")}`,
    steps: state.steps,
    labels,
    record: { resource: `links from ${chain.start.operationId}`, notes: [...new Set(state.notes)] },
    error: state.error,
    heard: state.steps,
    durationMs: performance.now() - started,
  });
}

/** Sends one step of a chain and keeps its result; the exchange, when one happened. */
async function sendAndRecord(
  env: StatefulEnv,
  chain: LinkChain,
  state: ChainState,
  random: Random,
  label: string,
  request: StepRequest,
  judge: (o: ObservedStep) => readonly Finding[],
): Promise<ObservedStep | undefined> {
  if (state.error !== undefined || state.steps.length >= MAX_STEPS || Date.now() >= env.deadline) return undefined;
  state.visited.add(request.op);
  let observed: ObservedStep | undefined;
  const index = state.labels.length;
  const sent = await sendStep(env, chain.caseId, label, request, random, (o) => {
    observed = o;
    return judge(o);
  });
  if ("refused" in sent) {
    state.notes.push(sent.refused);
    return undefined;
  }
  state.labels.push(label);
  state.steps.push(...sent.result.steps.map((s) => ({ ...s, index })));
  state.error = sent.result.error;
  return observed;
}

const success = (o: ObservedStep): boolean =>
  o.result.ok && o.result.response.status >= 200 && o.result.response.status < 300;

/** Follows each link of a step's success answer to an operation not yet called, then that one's links. */
async function follow(
  env: StatefulEnv,
  state: ChainState,
  send: (
    label: string,
    request: StepRequest,
    judge: (o: ObservedStep) => readonly Finding[],
  ) => Promise<ObservedStep | undefined>,
  source: ObservedStep,
  random: Random,
): Promise<void> {
  if (!success(source)) return;
  for (const link of linksOf(env.contract, source.operation)) {
    if (state.visited.has(link.target)) continue;
    const parameters = plainParameters(env.contract, link.target);
    try {
      for (const [key, value] of Object.entries(link.parameters)) parameters[key] = linkValue(value, source);
    } catch (error) {
      state.notes.push(`link ${link.name} of ${source.operation.operationId}: ${(error as Error).message}`);
      continue;
    }
    const label = `${link.target.operationId} (link ${link.name})`;
    const request = {
      op: link.target,
      parameters,
      body: plainBody(env.contract, link.target, random),
      expect: ON_ITEM,
    };
    const next = await send(label, request, (o) => linkFindings(env, source, link, o));
    if (next !== undefined) await follow(env, state, send, next, random);
  }
}

/** A link from a create's answer to an operation that then says 404 or 410: what the create made is not there. */
function linkFindings(env: StatefulEnv, source: ObservedStep, link: Link, target: ObservedStep): Finding[] {
  const status = target.result.ok ? target.result.response.status : undefined;
  if (status !== 404 && status !== 410) return [];
  const made = resourceModel(env.contract).roleOf(source.operation)?.role === "create";
  const sourceStatus = source.result.ok ? source.result.response.status : undefined;
  const message = `${link.target.operationId}, reached by the link ${link.name} from ${source.operation.operationId}'s ${sourceStatus}, answered ${status}`;
  const body = target.result.ok ? target.result.response.body.toString("utf8").slice(0, 300) : "";
  return [
    finding({
      check: "stateful.link-available",
      severity: made && sourceStatus !== 202 ? "warning" : "note",
      message: made
        ? `${message}: what the create made is not there`
        : `${message} (the link's source made nothing, so that may be right)`,
      expected: `a success: the link says ${link.target.operationId} takes these values from ${source.operation.operationId}`,
      received: `${status}${body === "" ? "" : `: ${body}`}`,
      rule: `${env.specSource}#${source.operation.pointer}`,
      level: "stateful",
    }),
  ];
}
