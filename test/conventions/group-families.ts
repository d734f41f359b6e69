// Conventions of the set: see index.ts. This group's conventions, in order.
import type { Convention } from "./convention.js";
import { googleAip } from "./google-aip.js";
import { kubernetes } from "./kubernetes.js";
import { nestedParentExists } from "./nested-parent-exists.js";
import { shallowRoutes } from "./shallow-routes.js";
import { stripe } from "./stripe.js";

export const GROUP_FAMILIES: readonly Convention[] = [googleAip, stripe, kubernetes, nestedParentExists, shallowRoutes];
