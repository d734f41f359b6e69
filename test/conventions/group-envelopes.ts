// Conventions of the set: see index.ts. This group's conventions, in order.
import type { Convention } from "./convention.js";
import { dataEnvelope } from "./data-envelope.js";
import { drfPagination } from "./drf-pagination.js";
import { hal } from "./hal.js";
import { jsonApi } from "./json-api.js";
import { odata } from "./odata.js";
import { twoLevelEnvelope } from "./two-level-envelope.js";

export const GROUP_ENVELOPES: readonly Convention[] = [
  dataEnvelope,
  twoLevelEnvelope,
  jsonApi,
  hal,
  odata,
  drfPagination,
];
