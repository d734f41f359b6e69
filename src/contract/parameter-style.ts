// How an OpenAPI parameter is written (OAS 3.0/3.1 Parameter Object: `in`, `style`, `explode`,
// `allowReserved`, `content`), with the specification's defaults applied: what parameter-serialize.ts
// writes by and the parameter readers read by. Pure and browser-safe: no Node built-ins, no I/O.
import { encodeComponent } from "./percent-encoding.js";
import { parseMediaType } from "./media-type.js";

/** Where a parameter goes in a request. */
export type ParameterLocation = "path" | "query" | "header" | "cookie";

/** How a parameter is written: the Parameter Object's fields that decide serialisation, defaults applied. */
export interface ParameterStyle {
  readonly name: string;
  readonly in: ParameterLocation;
  /** simple | label | matrix | form | spaceDelimited | pipeDelimited | deepObject (| cookie, OAS 3.2). */
  readonly style: string;
  readonly explode: boolean;
  readonly allowReserved?: boolean;
  /**
   * A content-typed parameter (OAS `content` instead of `schema`): the value is serialised as that media
   * type (JSON for application/json and +json) and then percent-encoded where it goes.
   */
  readonly contentType?: string;
}

/** The Parameter Object fields parameterStyle reads. */
export interface ParameterObjectLike {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly style?: string;
  readonly explode?: boolean;
  readonly allowReserved?: boolean;
  readonly content?: Readonly<Record<string, unknown>>;
}

/** How a compiled parameter (defaults already applied, contract.ts) is written. */
export function styleOfCompiled(p: {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly style: string;
  readonly explode: boolean;
  readonly allowReserved: boolean;
  readonly content?: { readonly mediaType: string };
}): ParameterStyle {
  return {
    name: p.name,
    in: p.in,
    style: p.style,
    explode: p.explode,
    ...(p.allowReserved ? { allowReserved: true } : {}),
    ...(p.content === undefined ? {} : { contentType: p.content.mediaType }),
  };
}

/**
 * The style of a Parameter Object with the defaults applied (OAS 3.1 section 4.8.12.2): `form` for query
 * and cookie, `simple` for path and header; `explode` true for `form` (and `cookie`), false otherwise.
 * A `content` parameter takes its media type (the map holds exactly one entry).
 */
export function parameterStyle(parameter: ParameterObjectLike): ParameterStyle {
  const style = parameter.style ?? (parameter.in === "query" || parameter.in === "cookie" ? "form" : "simple");
  const explode = parameter.explode ?? (style === "form" || style === "cookie");
  const contentType = parameter.content === undefined ? undefined : Object.keys(parameter.content)[0];
  return {
    name: parameter.name,
    in: parameter.in,
    style,
    explode,
    ...(parameter.allowReserved === true ? { allowReserved: true } : {}),
    ...(contentType !== undefined ? { contentType } : {}),
  };
}

/** The name of a cookie parameter as written: as it is for style cookie (OAS 3.2), percent-encoded otherwise. */
export function cookieName(p: ParameterStyle): string {
  return p.style === "cookie" && p.contentType === undefined ? p.name : encodeComponent(p.name);
}

/** Whether a content-typed parameter's media type is JSON (application/json or a +json type). */
export function isJsonMediaType(contentType: string): boolean {
  const essence = parseMediaType(contentType)?.essence ?? contentType.toLowerCase();
  return essence === "application/json" || essence.endsWith("+json");
}
