import { readFileSync } from "node:fs";
import { KitError } from "../src/errors.js";
import { CHECK_IDS } from "./checks.js";
import type { Redactor } from "./redact.js";
import { writeFileAtomic } from "./reporters/files.js";
import type { CaseResult } from "./results.js";

/** A known deviation of a target: a finding of this check on this fixture is expected. */
export interface KnownDeviation {
  readonly fixture: string;
  readonly check: string;
  readonly reason?: string;
}

export interface Baseline {
  readonly description?: string;
  readonly deviations: readonly KnownDeviation[];
}

/** Reads a baseline file; every problem names the file and the field. */
export function loadBaseline(file: string): Baseline {
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
