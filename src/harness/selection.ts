import type { CompiledOperation, Contract } from "../contract/index.js";
import { KitError } from "../errors.js";
import { DEFAULT_FIXTURES } from "../paths.js";
import { CHECK_IDS, type CheckId } from "./checks.js";
import { loadFixtures } from "./fixtures/index.js";
import type { Fixture } from "./case-types.js";
import { generatable, generatedCasesOf, type GeneratedCase } from "./generate/index.js";
import type { RunOptions } from "./options.js";
import { linkChains, type LinkChain } from "./stateful/index.js";
import { statefulTargets, type StatefulTarget } from "./stateful/index.js";
import { escapeRegExp } from "../regexp.js";

/** Which fixtures and checks run: --only and --skip applied. */
export interface Selection {
  readonly fixtures: readonly Fixture[];
  /** The checks to run, or undefined for every check. */
  readonly checkFilter: ((id: CheckId) => boolean) | undefined;
}

/** Everything a run will do, decided before anything is sent. */
export interface CasePlan extends Selection {
  /** Every fixture loaded, selected or not: a baseline entry naming none of them is stale. */
  readonly loaded: readonly Fixture[];
  /** Operations whose requests are generated (with --generate), with at least one case selected. */
  readonly generatedOperations: readonly CompiledOperation[];
  /** The generated cases selected, in the operations' order. */
  readonly generated: readonly GeneratedCase[];
  /** The resources whose sequences the stateful phase runs (with --generate), in the model's order. */
  readonly stateful: readonly StatefulTarget[];
  /** The chains of OpenAPI links the stateful phase follows (with --generate), one per operation with links. */
  readonly links: readonly LinkChain[];
  /** Cases the run reports: one per selected fixture and per selected generated case. */
  readonly total: number;
  /** Why each operation no case targets is left out, by operationId (for the coverage report). */
  readonly notPlanned: ReadonlyMap<string, string>;
}

/**
 * Loads the fixtures and applies --no-fixtures, --only, --skip and --generate. A run with nothing to
 * do is a usage error, never a silent empty pass.
 */
export function planCases(contract: Contract, options: RunOptions): CasePlan {
  const noFixtures = options.noFixtures === true;
  const loaded = noFixtures ? [] : loadFixtures(options.fixtures ?? DEFAULT_FIXTURES, contract);
  const candidates =
    options.generate === undefined
      ? []
      : contract.operations.filter((op) => generatable(op, contract.document, contract).ok);
  const allGenerated = candidates.flatMap((op) => generatedCasesOf(op, contract.document));
  const allStateful = options.generate === undefined ? [] : statefulTargets(contract, (op) => candidates.includes(op));
  const allLinks = options.generate === undefined ? [] : linkChains(contract, (op) => candidates.includes(op));
  if (loaded.length === 0 && allGenerated.length === 0) {
    throw new KitError(
      "PS_USAGE",
      options.generate === undefined
        ? "nothing to run: no fixtures"
        : contract.operations.length === 0
          ? "nothing to run: no fixtures, and the spec has no operations"
          : "nothing to run: no fixtures, and the generator can make requests for no operation of the spec",
    );
  }
  const cases = [
    ...loaded.map((f) => ({ id: f.id, operationId: f.operationId })),
    ...allGenerated.map((g) => ({ id: g.id, operationId: g.operation.operationId })),
    ...allStateful.map((t) => ({ id: t.caseId, operationId: t.ops.create.operationId })),
    ...allLinks.map((l) => ({ id: l.caseId, operationId: l.start.operationId })),
  ];
  const { chosen, checkFilter } = selectCases(cases, options.only ?? [], options.skip ?? []);
  const fixtures = loaded.filter((f) => chosen.has(f.id));
  const generated = allGenerated.filter((g) => chosen.has(g.id));
  const generatedOperations = candidates.filter((op) => generated.some((g) => g.operation === op));
  const stateful = allStateful.filter((t) => chosen.has(t.caseId));
  const links = allLinks.filter((l) => chosen.has(l.caseId));
  const total = fixtures.length + generated.length + stateful.length + links.length;
  const why = notPlanned(contract, { loaded, fixtures, generated: generatedOperations }, options);
  return { loaded, fixtures, checkFilter, generatedOperations, generated, stateful, links, total, notPlanned: why };
}

/** Why the operations no selected fixture and no generated case targets are left out. */
function notPlanned(
  contract: Contract,
  p: { loaded: readonly Fixture[]; fixtures: readonly Fixture[]; generated: readonly CompiledOperation[] },
  options: RunOptions,
): Map<string, string> {
  const targeted = new Set([...p.fixtures.map((f) => f.operationId), ...p.generated.map((o) => o.operationId)]);
  const withFixtures = new Set(p.loaded.map((f) => f.operationId));
  const why = new Map<string, string>();
  for (const op of contract.operations) {
    if (targeted.has(op.operationId)) continue;
    const can = generatable(op, contract.document, contract);
    const generator =
      options.generate === undefined
        ? can.ok
          ? "; --generate makes cases for it"
          : ""
        : can.ok
          ? ""
          : `; the generator cannot: ${can.why}`;
    why.set(
      op.operationId,
      withFixtures.has(op.operationId) || (options.generate !== undefined && can.ok)
        ? "its cases were left out by --only/--skip"
        : options.noFixtures === true
          ? `--no-fixtures${generator}`
          : `no fixture names it${generator}`,
    );
  }
  return why;
}

/** A pattern with `*` wildcards as an anchored regular expression; everything else is literal. */
const toRegex = (pattern: string): RegExp => new RegExp(`^${pattern.split("*").map(escapeRegExp).join(".*")}$`);

/**
 * Applies --only/--skip to fixtures alone (the cases of a run without --generate).
 */
export function selectFixtures(all: readonly Fixture[], only: readonly string[], skip: readonly string[]): Selection {
  const { chosen, checkFilter } = selectCases(
    all.map((f) => ({ id: f.id, operationId: f.operationId })),
    only,
    skip,
  );
  return { fixtures: all.filter((f) => chosen.has(f.id)), checkFilter };
}

/**
 * Applies --only/--skip to a run's cases, fixtures and generated ones alike. A pattern that matches a
 * case id selects cases; else one that matches an operationId selects that operation's cases; only a
 * pattern that matches neither but a check id selects checks; one that matches nothing is a usage
 * error, whatever the case source (a typo must never pass green). response.received is never
 * filtered out: a step without an answer can never pass.
 */
export function selectCases(
  all: readonly { readonly id: string; readonly operationId: string }[],
  only: readonly string[],
  skip: readonly string[],
): { chosen: ReadonlySet<string>; checkFilter: Selection["checkFilter"] } {
  const classify = (flag: string, patterns: readonly string[]) => {
    const caseRes: ((c: (typeof all)[number]) => boolean)[] = [];
    const checkRes: RegExp[] = [];
    for (const p of patterns) {
      const re = toRegex(p);
      if (all.some((c) => re.test(c.id))) caseRes.push((c) => re.test(c.id));
      else if (all.some((c) => re.test(c.operationId))) caseRes.push((c) => re.test(c.operationId));
      else if (CHECK_IDS.some((id) => re.test(id))) checkRes.push(re);
      else
        throw new KitError(
          "PS_USAGE",
          `--${flag} ${JSON.stringify(p)} matches no case id, no operation and no check id`,
        );
    }
    return { caseRes, checkRes };
  };
  const o = classify("only", only);
  const s = classify("skip", skip);
  const chosen = new Set(
    all
      .filter((c) => (o.caseRes.length === 0 || o.caseRes.some((t) => t(c))) && !s.caseRes.some((t) => t(c)))
      .map((c) => c.id),
  );
  if (chosen.size === 0) throw new KitError("PS_USAGE", "--only/--skip leave no case to run");
  const matches = (res: readonly RegExp[], id: string): boolean => res.some((re) => re.test(id));
  const checkFilter =
    o.checkRes.length === 0 && s.checkRes.length === 0
      ? undefined
      : (id: CheckId) =>
          id === "response.received" ||
          ((o.checkRes.length === 0 || matches(o.checkRes, id)) && !matches(s.checkRes, id));
  return { chosen, checkFilter };
}
