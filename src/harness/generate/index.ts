// The generator wing's face: the generated cases of an operation (cases.ts), their requests
// (requests.ts) and bodies (bodies.ts, values.ts, strings.ts, encoding.ts, mutations.ts), and the
// phase that runs them (phase.ts). The rest of the harness imports this file, never the modules behind it.
export { minimalBody, positiveBodies } from "./bodies.js";
export type { GeneratorOptions } from "./bodies.js";
export { generatedCasesOf } from "./cases.js";
export type { GeneratedCase, GeneratedKind } from "./cases.js";
export { bodyKind, schemaOf, verdict } from "./encoding.js";
export { runGenerated } from "./phase.js";
export { generatable, minimalRequest, plainRequestValue, requestFixture } from "./requests.js";
