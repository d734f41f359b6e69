// The stateful wing's face: the plan of resources and link chains (plan.ts, links.ts) and the phase
// that runs their sequences (phase.ts). The rest of the harness imports this file, never the modules behind it.
export { linkChains } from "./links.js";
export type { LinkChain } from "./links.js";
export { runStatefulCases } from "./phase.js";
export { statefulTargets } from "./plan.js";
export type { StatefulTarget } from "./plan.js";
