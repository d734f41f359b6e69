// The contract API without loadContract: nothing here needs Node, so code that also runs in browsers
// and service workers (the server's core, the fetch handler) imports this rather than index.ts.
export { compileContract, locateRef, schemaAt } from "./contract.js";
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
  checkResponseHeaders,
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
  ResponseReason,
  ResponseRefusal,
} from "./acceptability.js";
export { escapePointer, unescapePointer, resolvePointer, safeDecode } from "./json-pointer.js";
export { INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX, TWO_53 } from "./integer-bounds.js";
export { parseJsonExact, stringifyExact, canonicalInteger, analyseNumber } from "./exact-json.js";
export type { ExactNumber, ExactNumbers, ParseResult } from "./exact-json.js";
export { parseMediaType, matchMediaType } from "./media-type.js";
export type { MediaType } from "./media-type.js";
export { fromAjvErrors, describeViolation } from "./violations.js";
export type { Violation } from "./violations.js";
export { checkedFormats, createAjv, dialectOf } from "./ajv.js";
export type { SchemaDialect } from "./ajv.js";
export {
  buildQueryString,
  isFieldValue,
  parameterStyle,
  parseCookie,
  parseHeader,
  parsePath,
  parseQuery,
  serializeCookie,
  serializeHeader,
  serializePath,
  serializeQuery,
  shapeOfSchema,
  styleOfCompiled,
  splitCookies,
  splitQuery,
} from "./parameters.js";
export type {
  CookiePairs,
  JsonType,
  ParameterObjectLike,
  ParameterStyle,
  ParsedParameter,
  QueryPairs,
  ValueShape,
} from "./parameters.js";
