// The convention set: one small document per common REST shape, each with its promises and its
// reference server (docs/resources.md, "The convention set").
import { clientIntegerId } from "./client-integer-id.js";
import type { Convention } from "./convention.js";
import { GROUP_ENVELOPES } from "./group-envelopes.js";
import { GROUP_FAMILIES } from "./group-families.js";
import { GROUP_HTTP } from "./group-http.js";
import { GROUP_IDS } from "./group-ids.js";

export const CONVENTIONS: readonly Convention[] = [
  clientIntegerId,
  ...GROUP_IDS,
  ...GROUP_ENVELOPES,
  ...GROUP_FAMILIES,
  ...GROUP_HTTP,
];
