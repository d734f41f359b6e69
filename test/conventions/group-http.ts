// Conventions of the set: see index.ts. This group's conventions, in order.
import type { Convention } from "./convention.js";
import { deleteVariants } from "./delete-variants.js";
import { mergeAndJsonPatch } from "./merge-and-json-patch.js";
import { problemDetails422 } from "./problem-details-422.js";
import { putUpsert } from "./put-upsert.js";
import { readonlyTimestamps } from "./readonly-timestamps.js";
import { requestDefaults } from "./request-defaults.js";

export const GROUP_HTTP: readonly Convention[] = [
  putUpsert,
  mergeAndJsonPatch,
  requestDefaults,
  readonlyTimestamps,
  problemDetails422,
  deleteVariants,
];
