// The fetch handler's own entry, safe in browsers and service workers: nothing on its import path
// needs Node (the browser bundle, dist/browser/plantstore-handler.js, is built from this file).
export { createMockHandler, createPlantStoreHandler } from "../server/fetch-handler.js";
export type {
  MockHandler,
  MockHandlerOptions,
  PlantStoreHandler,
  PlantStoreHandlerOptions,
} from "../server/fetch-handler.js";
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_ITEMS, DEFAULT_MAX_PLANTS, DEV_TOKEN } from "../server/defaults.js";
export type { MockOptions } from "../server/defaults.js";
export { ResourceStore } from "../server/engine-store.js";
export { ERROR_ANSWERS } from "../server/error-answers.js";
export type { ErrorAnswerCode } from "../server/error-answers.js";
export { KitError } from "../errors.js";
export type { KitErrorCode } from "../errors.js";
export type { NewPlant, Plant, ErrorBody } from "../types.js";
