// The package's library surface (`import { ... } from "plantstore-kit"`), for projects that drive
// the kit from code rather than through the CLI. The CLI sits on top of the same calls.
// Browser and service-worker code imports "plantstore-kit/handler", which carries no Node module.
export * from "./contract/index.js";
export * from "./server/index.js";
export * from "../conformance/index.js";
export { startPrism, prismEntry } from "./mock/prism.js";
export type { PrismOptions, RunningPrism } from "./mock/prism.js";
export { KitError, KIT_ERRORS } from "./errors.js";
export type { KitErrorCode } from "./errors.js";
export type { Plant, NewPlant, ErrorBody } from "./types.js";
export { DEFAULT_SPEC, DEFAULT_FIXTURES } from "./paths.js";
