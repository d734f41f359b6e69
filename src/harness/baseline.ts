import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KitError } from "../errors.js";
import { KIT_ROOT } from "../paths.js";
import { escapeRegExp } from "../regexp.js";
import { CHECK_IDS } from "./checks.js";
import type { Redactor } from "./redact.js";
import { writeFileAtomic } from "./write-file.js";
import type { CaseResult } from "./results.js";

/**
 * A known deviation of a target: a finding of this check on this fixture is expected. `fixture` may
 * hold `*` wildcards (`generated-auth-*`): the entry then describes what a target does on any
 * contract rather than one case, and `received` (text the finding's evidence must contain) narrows
 * it to that behaviour. A pattern entry is never stale: it names no case that must occur.
 */
export interface KnownDeviation {
  readonly fixture: string;
  readonly check: string;
  readonly received?: string;
  readonly reason?: string;
}

/** Whether an entry names cases by a pattern (and so describes a behaviour, not a case). */
export const isPattern = (d: KnownDeviation): boolean => d.fixture.includes("*");

/** The entries a finding of a case matches: the same check, the fixture (or its pattern), the evidence. */
export function deviationMatcher(
  deviations: readonly KnownDeviation[],
): (fixture: string, check: string, received: string) => boolean {
  const exact = new Set(
    deviations.filter((d) => !isPattern(d) && d.received === undefined).map((d) => baselineKey(d.fixture, d.check)),
  );
  const rest = deviations
    .filter((d) => isPattern(d) || d.received !== undefined)
    .map((d) => ({ ...d, re: new RegExp(`^${d.fixture.split("*").map(escapeRegExp).join(".*")}$`) }));
  return (fixture, check, received) =>
    exact.has(baselineKey(fixture, check)) ||
    rest.some(
      (d) => d.check === check && d.re.test(fixture) && (d.received === undefined || received.includes(d.received)),
    );
}

/** The baselines the kit ships, by the name --baseline takes instead of a file. */
export const SHIPPED_BASELINES = ["prism", "prism-mock"] as const;

/** A --baseline value as a file: a shipped baseline's name, else the path as given. */
export function baselineFile(nameOrFile: string): string {
  return (SHIPPED_BASELINES as readonly string[]).includes(nameOrFile)
    ? join(KIT_ROOT, "conformance", "baselines", `${nameOrFile}.json`)
    : nameOrFile;
}

export interface Baseline {
  readonly description?: string;
  readonly deviations: readonly KnownDeviation[];
}

/** Reads a baseline file; every problem names the file and the field. */
export function loadBaseline(nameOrFile: string): Baseline {
  const file = baselineFile(nameOrFile);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `--baseline ${file}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new KitError("PS_BASELINE_INVALID", `${file}: not JSON: ${(error as Error).message}`);
  }
  if (typeof data !== "object" || data === null || !Array.isArray((data as { deviations?: unknown }).deviations)) {
    throw new KitError("PS_BASELINE_INVALID", `${file}: must be an object whose field /deviations is an array`);
  }
  (data as { deviations: unknown[] }).deviations.forEach((d: unknown, i) => {
    const o = d as Record<string, unknown> | null;
    if (typeof o !== "object" || o === null || typeof o.fixture !== "string" || typeof o.check !== "string") {
      throw new KitError("PS_BASELINE_INVALID", `${file}: field /deviations/${i} needs string "fixture" and "check"`);
    }
    if (o.received !== undefined && typeof o.received !== "string")
      throw new KitError("PS_BASELINE_INVALID", `${file}: field /deviations/${i}/received must be a string`);
    if (!(CHECK_IDS as readonly string[]).includes(o.check)) {
      throw new KitError(
        "PS_BASELINE_INVALID",
        `${file}: field /deviations/${i}/check: "${o.check}" is not a check id (${CHECK_IDS.join(", ")})`,
      );
    }
  });
  return data as Baseline;
}

export const baselineKey = (fixture: string, check: string): string => `${fixture}\u0000${check}`;

/**
 * The baseline a run's target would pass with: each counted or known finding, once per fixture and
 * check, its message as the reason.
 */
export function baselineFromResults(results: readonly CaseResult[], target: string): Baseline {
  const deviations = results.flatMap((r) => {
    // One entry per fixture and check, though a check may speak on several steps: the last one's message stays.
    const byCheck = new Map<string, KnownDeviation>();
    for (const f of r.steps.flatMap((s) => s.findings)) {
      if (f.counts || f.known) byCheck.set(f.check, { fixture: r.fixture, check: f.check, reason: f.message });
    }
    return [...byCheck.values()];
  });
  return { description: `known deviations of ${target}`, deviations };
}

/**
 * Writes a baseline file whole or not at all. A reason is a finding's message and the description
 * names the target: with `redact`, both are masked again (a long secret, as a net; a run's results
 * are masked already); fixture and check ids never are.
 */
export function writeBaseline(file: string, baseline: Baseline, redact?: Redactor): void {
  const masked: Baseline =
    redact === undefined
      ? baseline
      : {
          ...(baseline.description === undefined ? {} : { description: redact.prose(baseline.description) }),
          deviations: baseline.deviations.map((d) =>
            d.reason === undefined ? d : { ...d, reason: redact.prose(d.reason) },
          ),
        };
  writeFileAtomic(file, JSON.stringify(masked, null, 2) + "\n");
}
