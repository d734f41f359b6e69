// What a certificate states of a run's inputs: the contract, the fixture set and the baseline, each
// by where it is and the sha256 of its canonical JSON (so a spec re-formatted, re-ordered or converted
// between YAML and JSON keeps its hash), and the kit that ran.
import { readFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { Contract } from "../../contract/index.js";
import { KitError } from "../../errors.js";
import { KIT_ROOT } from "../../paths.js";
import { canonicalJson, parseCanonicalInput, sha256 } from "./canonical-json.js";
import { fixtureFiles } from "../fixtures/index.js";

export interface ContractStatement {
  /** The spec's path relative to the working folder (`/`-separated), or its URL. */
  readonly path: string;
  readonly title: string;
  readonly version: string;
  readonly openapi: string;
  /** sha256 of the canonical JSON of the document as loaded (split specs bundled). */
  readonly sha256: string;
}

export interface FixturesStatement {
  readonly path: string;
  /** The `*.json` files of the folder (every fixture loaded, whether --only/--skip ran it or not). */
  readonly count: number;
  /** sha256 of the canonical JSON of {fixture id: the file's JSON} over every file of the folder. */
  readonly sha256: string;
}

export interface BaselineStatement {
  readonly path: string;
  /** Known deviations listed. */
  readonly count: number;
  readonly sha256: string;
}

/** A path as a certificate shows it: relative to `cwd`, `/`-separated; a URL without its user info. */
export function certificatePath(path: string, cwd = process.cwd()): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    try {
      const url = new URL(path);
      url.username = "";
      url.password = "";
      return url.toString();
    } catch {
      return path;
    }
  }
  const rel = relative(cwd, isAbsolute(path) ? path : resolve(cwd, path));
  return rel === "" ? "." : rel.split(sep).join("/");
}

/** The contract as loaded: where, which, and the sha256 of its canonical JSON. */
export function describeContract(
  contract: Pick<Contract, "source" | "title" | "version" | "openapi" | "document">,
  cwd?: string,
): ContractStatement {
  let text: string;
  try {
    text = canonicalJson(contract.document);
  } catch (error) {
    throw new KitError(
      "PS_SPEC_INVALID",
      `${contract.source}: cannot be hashed for a certificate: ${(error as Error).message}`,
    );
  }
  return {
    path: certificatePath(contract.source, cwd),
    title: contract.title,
    version: contract.version,
    openapi: contract.openapi,
    sha256: sha256(text),
  };
}

/** The fixture set of a folder: every `*.json` file, by fixture id (the file name without .json). */
export function describeFixtures(dir: string, cwd?: string): FixturesStatement {
  const files = fixtureFiles(dir);
  const set: Record<string, unknown> = Object.create(null);
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(join(dir, file), "utf8");
    } catch (error) {
      throw new KitError("PS_FILE_UNREADABLE", `${join(dir, file)}: ${(error as Error).message}`);
    }
    const parsed = parseCanonicalInput(text);
    if (!parsed.ok) throw new KitError("PS_FIXTURE_INVALID", `${join(dir, file)}: not valid JSON: ${parsed.message}`);
    set[file.slice(0, -".json".length)] = parsed.value;
  }
  return { path: certificatePath(dir, cwd), count: files.length, sha256: sha256(canonicalJson(set)) };
}

/** A baseline file: its known deviations and the sha256 of its canonical JSON. */
export function describeBaseline(file: string, cwd?: string): BaselineStatement {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `--baseline ${file}: ${(error as Error).message}`);
  }
  const parsed = parseCanonicalInput(text);
  if (!parsed.ok) throw new KitError("PS_BASELINE_INVALID", `${file}: not JSON: ${parsed.message}`);
  const deviations = (parsed.value as { deviations?: unknown } | null)?.deviations;
  return {
    path: certificatePath(file, cwd),
    count: Array.isArray(deviations) ? deviations.length : 0,
    sha256: sha256(canonicalJson(parsed.value)),
  };
}

/** The kit's name and version, from its package.json. */
export function kitIdentity(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(KIT_ROOT, "package.json"), "utf8")) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}
