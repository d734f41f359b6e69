// Conventions of the set: see index.ts. This group's conventions, in order.
import { clientStringSlug } from "./client-string-slug.js";
import type { Convention } from "./convention.js";
import { create201NoBodyLocation } from "./create-201-no-body-location.js";
import { optionalClientId } from "./optional-client-id.js";
import { serverReadonlyIntegerId } from "./server-readonly-integer-id.js";
import { serverUuidId } from "./server-uuid-id.js";

export const GROUP_IDS: readonly Convention[] = [
  clientStringSlug,
  serverReadonlyIntegerId,
  serverUuidId,
  optionalClientId,
  create201NoBodyLocation,
];
