import type { CompiledOperation, Contract } from "../src/contract/index.js";
import { KitError } from "../src/errors.js";
import { DEFAULT_FIXTURES } from "../src/paths.js";
import { CHECK_IDS, type CheckId } from "./checks.js";
import { loadFixtures, type Fixture } from "./fixtures.js";
import { generatable, negativesPossible } from "./generate-request.js";
import type { RunOptions } from "./options.js";
import { escapeRegExp } from "../src/regexp.js";

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
  /** Operations whose JSON request bodies are generated (with --generate). */
  readonly generatedOperations: readonly CompiledOperation[];
  /** Cases the run reports: one per selected fixture, one per generated operation and polarity. */
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
  const { fixtures, checkFilter } = noFixtures
    ? { fixtures: [], checkFilter: undefined }
    : selectFixtures(loaded, options.only ?? [], options.skip ?? []);
  const generatedOperations =
    options.generate === undefined ? [] : contract.operations.filter((op) => generatable(op).ok);
  if (fixtures.length === 0 && generatedOperations.length === 0) {
    throw new KitError(
      "PS_USAGE",
      options.generate === undefined
        ? "nothing to run: no fixtures"
        : contract.operations.length === 0
          ? "nothing to run: no fixtures, and the spec has no operations"
          : "nothing to run: no fixtures, and the generator can make requests for no operation of the spec",
    );
  }
  // Per generated operation: a positive case, a negative one where a rule can be broken, an auth one where credentials are required.
  const total =
    fixtures.length +
    generatedOperations.reduce((n, op) => n + (negativesPossible(op) ? 2 : 1) + (op.authRequired ? 1 : 0), 0);
  const why = notPlanned(contract, { loaded, fixtures, generated: generatedOperations }, options);
  return { loaded, fixtures, checkFilter, generatedOperations, total, notPlanned: why };
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
    const can = generatable(op);
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
      withFixtures.has(op.operationId)
        ? "its fixtures were left out by --only/--skip"
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
 * Applies --only/--skip. A pattern that matches a fixture id selects fixtures; only a pattern that
 * matches no fixture but a check id selects checks; one that matches neither is a usage error.
 * response.received is never filtered out: a step without an answer can never pass.
 */
export function selectFixtures(all: readonly Fixture[], only: readonly string[], skip: readonly string[]): Selection {
  const classify = (flag: string, patterns: readonly string[]) => {
    const fixtureRes: RegExp[] = [];
    const checkRes: RegExp[] = [];
    for (const p of patterns) {
      const re = toRegex(p);
      if (all.some((x) => re.test(x.id))) fixtureRes.push(re);
      else if (CHECK_IDS.some((id) => re.test(id))) checkRes.push(re);
      else throw new KitError("PS_USAGE", `--${flag} ${JSON.stringify(p)} matches no fixture id and no check id`);
    }
    return { fixtureRes, checkRes };
  };
  const o = classify("only", only);
  const s = classify("skip", skip);
  const chosen = (res: readonly RegExp[], id: string): boolean => res.some((re) => re.test(id));
  const fixtures = all.filter(
    (f) => (o.fixtureRes.length === 0 || chosen(o.fixtureRes, f.id)) && !chosen(s.fixtureRes, f.id),
  );
  if (fixtures.length === 0) throw new KitError("PS_USAGE", "--only/--skip leave no fixture to run");
  const checkFilter =
    o.checkRes.length === 0 && s.checkRes.length === 0
      ? undefined
      : (id: CheckId) =>
          id === "response.received" ||
          ((o.checkRes.length === 0 || chosen(o.checkRes, id)) && !chosen(s.checkRes, id));
  return { fixtures, checkFilter };
}
