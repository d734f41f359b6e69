import type { components } from "./generated/plant-store.js";

// Types of the contract's records, generated from spec/openapi.yaml (npm run gen:types), never
// written again by hand. NewPlant's id is typed number there; on the wire it is any int64, which the
// server reads exactly (see contract/exact-json.ts) and keeps as canonical decimal text.
export type Plant = components["schemas"]["Plant"];
export type NewPlant = components["schemas"]["NewPlant"];
export type ErrorBody = components["schemas"]["Error"];
