// The Plant Store's schemas as a team writes them by hand for its own tools (the Fastify anchor,
// the validating pass-through): from spec/openapi.yaml, NewPlant with its id, Plant, Error.
export const NEW_PLANT = {
  type: "object",
  required: ["id", "name"],
  properties: { id: { type: "integer" }, name: { type: "string" }, tag: { type: "string" } },
} as const;
export const PLANT = {
  type: "object",
  required: ["name"],
  properties: { name: { type: "string" }, tag: { type: "string" } },
} as const;
export const ERROR = {
  type: "object",
  required: ["error", "message"],
  properties: { error: { type: "integer" }, message: { type: "string" } },
} as const;
