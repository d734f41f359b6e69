// The contract API without loadContract: nothing here needs Node, so code that also runs in browsers
// and service workers (the server's core, the fetch handler) imports this rather than index.ts.
export { compileContract, documentResolver, locateRef, schemaAt } from "./contract.js";
export type {
  Contract,
  ContractNote,
  CompiledHeader,
  CompiledOperation,
  CompiledParameter,
  CompiledResponse,
  Located,
  ParameterContent,
  ParameterLocation,
  MediaTypeEntry,
  SecurityScheme,
  Validator,
  RouteResult,
} from "./contract.js";
export {
  checkParameters,
  checkRequest,
  checkRequestValue,
  checkResponse,
  checkResponseValue,
  checkResponseHeaders,
  responseMediaTypeDetail,
} from "./acceptability.js";
export type {
  AcceptedRequest,
  AcceptedResponse,
  BodyRefusal,
  CheckedRequest,
  CheckedResponse,
  HeaderFields,
  HeaderProblem,
  ParameterRefusal,
  Refusal,
  RequestMessage,
  RequestReason,
  RequestRefusal,
  RequestValue,
  ResponseMessage,
  ResponseValue,
  ResponseReason,
  ResponseRefusal,
} from "./acceptability.js";
export { escapePointer, unescapePointer, resolvePointer, safeDecode } from "./json-pointer.js";
export { INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX, TWO_53 } from "./integer-bounds.js";
export { parseJsonExact, stringifyExact, canonicalInteger, analyseNumber } from "./exact-json.js";
export type { ExactNumber, ExactNumbers, ParseResult } from "./exact-json.js";
export { ExactLiteral, exactTree, readExactJson, readsBackAsItself, writeJson } from "./exact-tree.js";
export { plainValue } from "./plain-value.js";
export type { Fill, PlainOptions } from "./plain-value.js";
export { parseMediaType, matchMediaType } from "./media-type.js";
export type { MediaType } from "./media-type.js";
export { fromAjvErrors, describeViolation } from "./violations.js";
export type { Violation } from "./violations.js";
export { checkedFormats, createAjv, dialectOf } from "./ajv.js";
export type { SchemaDialect } from "./ajv.js";
export { parameterStyle, styleOfCompiled } from "./parameter-style.js";
export type { ParameterObjectLike, ParameterStyle } from "./parameter-style.js";
export {
  buildQueryString,
  isFieldValue,
  serializeCookie,
  serializeHeader,
  serializePath,
  serializeQuery,
} from "./parameter-serialize.js";
export { shapeOfSchema } from "./parameter-shape.js";
export type { JsonType, ValueShape } from "./parameter-shape.js";
export { parseCookie, parseHeader, parsePath, parseQuery, splitCookies, splitQuery } from "./parameter-parse.js";
export type { CookiePairs, QueryPairs } from "./parameter-parse.js";
export type { ParsedParameter } from "./parameter-read.js";
export { producerFor, resourceModel, singular, ROLES, ROLE_EXTENSION, ID_EXTENSION } from "./resources.js";
export type {
  IdProperty,
  ListShape,
  PageFields,
  Paging,
  Producer,
  Resource,
  ResourceModel,
  Role,
} from "./resources.js";
export { followRefs, propertiesOf, propertySchemaAt, withAllOfParts } from "./schema-properties.js";
export type { ObjectProperties, Resolve } from "./schema-properties.js";
export { allowedName, deref, integerBounds, jsonKey, merge, NOTHING, typeOf, typesOf, view } from "./schema-view.js";
export type { Schema } from "./schema-view.js";
export { unsatisfiable, unsatisfiableSchema } from "./unsatisfiable.js";
export type { Unsatisfiable } from "./unsatisfiable.js";
export { schemaHints } from "./schema-hints.js";
export type { SchemaHint } from "./schema-hints.js";
