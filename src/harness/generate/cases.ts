// The generated cases a run reports, one per kind and operation, known before anything is sent.
import type { CompiledOperation } from "../../contract/index.js";
import { negativesPossible } from "./requests.js";

/** What a generated case does: positive requests, negative ones, or the credentials of an operation. */
export type GeneratedKind = "positive" | "negative" | "auth";

/** One generated case a run will report, known before anything is sent. */
export interface GeneratedCase {
  readonly id: string;
  readonly operation: CompiledOperation;
  readonly kind: GeneratedKind;
}

/** The id of a generated case, as reports, baselines and --only/--skip name it. */
export const generatedCaseId = (kind: GeneratedKind, op: CompiledOperation): string =>
  `generated-${kind}-${op.operationId}`;

/** The cases --generate makes for an operation: a positive one, a negative one where a rule can be broken, an auth one where credentials are required. */
export function generatedCasesOf(op: CompiledOperation, doc?: unknown): GeneratedCase[] {
  const kinds: GeneratedKind[] = ["positive"];
  if (negativesPossible(op, doc)) kinds.push("negative");
  if (op.authRequired) kinds.push("auth");
  return kinds.map((kind) => ({ id: generatedCaseId(kind, op), operation: op, kind }));
}
