// Conventions of the set: see index.ts. This group's conventions, in order.
import type { Convention } from "./convention.js";

export const GROUP_IDS: readonly Convention[] = [];
