import { expect, it } from "vitest";
import { checkedFormats, createAjv } from "./ajv.js";

it("checkedFormats names the formats that can break a string, and no number format", () => {
  const formats = checkedFormats();
  for (const name of ["date-time", "date", "email", "uuid", "uri", "ipv4"]) expect(formats.has(name)).toBe(true);
  // Number formats check numbers only: a string with format int64 (Telnyx's ids) takes any text.
  for (const name of ["int32", "int64", "float", "double"]) expect(formats.has(name)).toBe(false);
  const ajv = createAjv("openapi-3.1");
  expect(ajv.validate({ type: "string", format: "int64" }, "@not a value@")).toBe(true);
  expect(ajv.validate({ type: "string", format: "date" }, "@not a value@")).toBe(false);
});
