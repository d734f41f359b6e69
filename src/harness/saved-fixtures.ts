import { join, resolve } from "node:path";
import { savedRequest } from "./generate.js";
import { writeFileAtomic } from "./reporters/files.js";
import type { CaseResult } from "./results.js";

/** A fixture file's content, as conformance/fixture.schema.json describes it. */
export interface SavedFixture {
  readonly id: string;
  readonly description: string;
  readonly operation: string;
  readonly steps: readonly { readonly request: object; readonly expect: object }[];
}

/**
 * Each failing generated case of a run as a fixture, its unique properties (`unique`) turned back into
 * run-fresh placeholders, so it runs again and again in the regular suite against a stateful server.
 */
export function savedFixtures(results: readonly CaseResult[], seed: string, unique: readonly string[]): SavedFixture[] {
  return results.flatMap((r) => {
    if (r.generated === undefined || r.outcome !== "fail") return [];
    // Fixture ids are lower-case (fixture.schema.json); operationIds need not be.
    const id = `${r.fixture}-${seed}`.toLowerCase().replace(/[^a-z0-9.-]/g, "-");
    const parameters = r.generated.parameters ?? {};
    const withPath = Object.keys(parameters).some((k) => k.startsWith("path:"));
    const expect =
      r.generated.polarity === "positive"
        ? { kind: "valid", refusable: true, ...(withPath ? { missingOk: true } : {}) }
        : { kind: "invalid" };
    const request = {
      ...(Object.keys(parameters).length === 0 ? {} : { parameters }),
      ...(r.generated.body === "" ? {} : savedRequest(r.generated.body, unique)),
    };
    return [
      {
        id,
        description: `Saved from a generated run (seed ${seed}): ${r.description}`,
        operation: r.operation,
        steps: [{ request, expect }],
      },
    ];
  });
}

/** Writes a saved fixture as `<dir>/<id>.json`, whole or not at all; returns the file's path. */
export function writeSavedFixture(dir: string, fixture: SavedFixture): string {
  const file = join(resolve(dir), `${fixture.id}.json`);
  writeFileAtomic(file, JSON.stringify(fixture, null, 2) + "\n");
  return file;
}
