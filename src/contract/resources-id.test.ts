import { describe, expect, it } from "vitest";
import { compileContract } from "./contract.js";
import { resourceModel } from "./resources.js";

// Which property is an item's id where several could be (resources.ts, idProperty's comment, and
// docs/resources.md): each rule of the order, pinned by a document in which the rule alone decides.

const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  ...extra,
});
const str = { type: "string" };
const readOnly = { type: "string", readOnly: true };

interface Plants {
  /** The item path's parameter: `plantId` of `/plants/{plantId}`. */
  readonly parameter?: string;
  /** The create's answer (its 201). */
  readonly answer?: unknown;
  /** The create's request body. */
  readonly request?: unknown;
  /** Members of the create operation (`x-plantstore-id`). */
  readonly create?: Record<string, unknown>;
  /** Members of the create's 201 (`links`). */
  readonly made?: Record<string, unknown>;
}

/** The id property the model finds for a create and a read of `/plants`, as `in:at/name (guessed)`. */
function idOf({ parameter = "plantId", answer, request = object({ name: str }), create = {}, made = {} }: Plants) {
  const contract = compileContract(
    {
      openapi: "3.1.0",
      info: { title: "ids", version: "1" },
      paths: {
        "/plants": {
          post: {
            operationId: "makePlant",
            requestBody: { required: true, ...json(request) },
            responses: { "201": { description: "made", ...(answer === undefined ? {} : json(answer)), ...made } },
            ...create,
          },
        },
        [`/plants/{${parameter}}`]: {
          get: {
            operationId: "getPlant",
            parameters: [{ name: parameter, in: "path", required: true, schema: str }],
            responses: { "200": { description: "one", ...json(answer ?? object({ name: str })) } },
          },
        },
      },
    },
    "ids.yaml",
  );
  const id = resourceModel(contract).resources[0]?.id;
  return id === undefined
    ? undefined
    : `${id.in}:${id.at === "" ? "" : `${id.at}/`}${id.name}${id.guessed ? " (guessed)" : ""}`;
}

describe("which property is an item's id, where several could be", () => {
  it("x-plantstore-id comes before the property named as the parameter", () => {
    const answer = object({ plantId: str, code: str });
    expect(idOf({ answer })).toBe("response:plantId");
    expect(idOf({ answer, create: { "x-plantstore-id": "code" } })).toBe("response:code");
  });

  it("x-plantstore-id names the id even where the create's answer does not show it", () => {
    expect(idOf({ answer: object({ name: str }), create: { "x-plantstore-id": "code" } })).toBe("response:code");
  });

  it("an OpenAPI link comes before the property named as the parameter", () => {
    const answer = object({ plantId: str, uuid: str });
    const made = { links: { read: { operationId: "getPlant", parameters: { plantId: "$response.body#/uuid" } } } };
    expect(idOf({ answer, made })).toBe("response:uuid");
  });

  it("x-plantstore-id in an envelope's item comes before the parameter's name at the top level", () => {
    const answer = object({ plantId: str, data: object({ code: str }) });
    expect(idOf({ answer, create: { "x-plantstore-id": "code" } })).toBe("response:/data/code");
  });

  it("x-plantstore-id comes before an OpenAPI link: the author's word for the kit wins", () => {
    const answer = object({ plantId: str, uuid: str, code: str });
    const made = { links: { read: { operationId: "getPlant", parameters: { plantId: "$response.body#/uuid" } } } };
    expect(idOf({ answer, made, create: { "x-plantstore-id": "code" } })).toBe("response:code");
  });

  it("the property named as the parameter comes before the id-like property the parameter ends with", () => {
    expect(idOf({ answer: object({ id: str, plantId: str }) })).toBe("response:plantId");
  });

  it("the property named as the parameter is read in the create's answer before the create's request", () => {
    const request = object({ plantId: str, name: str }, { required: ["plantId", "name"] });
    expect(idOf({ answer: object({ plantId: str, name: str }), request })).toBe("response:plantId");
    expect(idOf({ answer: object({ name: str }), request })).toBe("request:plantId");
  });

  it("in the create's request only where the request requires it and it is not readOnly", () => {
    const optional = object({ plantId: str, name: str }, { required: ["name"] });
    expect(idOf({ answer: object({ name: str }), request: optional })).toBeUndefined();
    const serverOwned = object({ plantId: readOnly, name: str }, { required: ["plantId", "name"] });
    expect(idOf({ answer: object({ name: str }), request: serverOwned })).toBeUndefined();
    // Nor do they stand in the way of a guess in the answer.
    expect(idOf({ answer: object({ id: str, name: str }), request: optional })).toBe("response:id (guessed)");
    expect(idOf({ answer: object({ id: str, name: str }), request: serverOwned })).toBe("response:id (guessed)");
  });

  it("a property named as the parameter that is no scalar is no id: a guess follows", () => {
    expect(idOf({ answer: object({ plantId: object({ name: str }), serialId: readOnly }) })).toBe(
      "response:serialId (guessed)",
    );
  });

  it("of the id-like properties the parameter's name ends with, the longest is the id", () => {
    const answer = object({ id: str, plantId: str, name: str });
    expect(idOf({ parameter: "gardenPlantId", answer })).toBe("response:plantId (guessed)");
    expect(idOf({ parameter: "gardenPlantId", answer: object({ plantId: str, id: str }) })).toBe(
      "response:plantId (guessed)",
    );
  });

  it("a guess by the parameter's ending comes before the answer's one readOnly id", () => {
    expect(idOf({ answer: object({ ownerId: readOnly, id: str }) })).toBe("response:id (guessed)");
  });

  it("the answer's one readOnly property ending in id is the last guess; of two, neither", () => {
    expect(idOf({ parameter: "ref", answer: object({ plantId: readOnly, name: str }) })).toBe(
      "response:plantId (guessed)",
    );
    expect(idOf({ parameter: "ref", answer: object({ plantId: readOnly, gardenId: readOnly }) })).toBeUndefined();
    expect(idOf({ parameter: "ref", answer: object({ plantId: str, name: str }) })).toBeUndefined();
    // Ending in id: a readOnly `idempotencyKey` is none.
    expect(idOf({ parameter: "ref", answer: object({ plantId: readOnly, idempotencyKey: readOnly }) })).toBe(
      "response:plantId (guessed)",
    );
  });

  it("the answer's top level is searched before an envelope's item", () => {
    const item = object({ id: str, name: str });
    expect(idOf({ answer: object({ id: str, data: item }) })).toBe("response:id (guessed)");
    expect(idOf({ answer: object({ data: item }) })).toBe("response:/data/id (guessed)");
  });

  it("a guess at the top level comes before the parameter's name in an envelope", () => {
    expect(idOf({ answer: object({ id: str, data: object({ plantId: str }) }) })).toBe("response:id (guessed)");
  });

  it("an envelope's item is searched before an item two envelopes deep", () => {
    const item = object({ id: str });
    expect(idOf({ answer: object({ data: object({ plant: item }) }) })).toBe("response:/data/plant/id (guessed)");
    expect(idOf({ answer: object({ data: object({ id: str, plant: item }) }) })).toBe("response:/data/id (guessed)");
  });

  it("an envelope of the usual names comes before one named as the resource", () => {
    const item = object({ id: str });
    expect(idOf({ answer: object({ plant: item, data: item }) })).toBe("response:/data/id (guessed)");
    expect(idOf({ answer: object({ plant: item }) })).toBe("response:/plant/id (guessed)");
  });

  it("the request's required properties join the guess by the parameter's ending", () => {
    const request = object({ id: str, name: str }, { required: ["id", "name"] });
    expect(idOf({ answer: object({ name: str }), request })).toBe("request:id (guessed)");
  });
});
