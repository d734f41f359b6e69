import { escapeRegExp } from "../regexp.js";
import { shellQuote } from "../shell.js";
import type { CurlSecret } from "./credentials.js";
import type { PreparedRequest } from "./case-types.js";
import { joinUrl } from "./http-client.js";
import { occurrence, WHOLE_TOKEN_BELOW } from "./redact.js";

/**
 * A curl command that sends the same request. The run's token appears as "${PLANTSTORE_TOKEN}" (a
 * credential of its own as "${PLANTSTORE_CREDENTIAL_<NAME>}", near misses rebuilt from those, Basic
 * credentials through base64), so the command can be pasted after exporting them, and no secret
 * itself is printed. `secrets` is the run's token alone, or every secret with its expansion; one
 * shorter than 8 characters is taken from the environment where it stands as a whole token (`x` in
 * `Bearer x`, not in `text/plain`), a longer one wherever it occurs. `mask` (a Redactor) masks the
 * literal parts before they are quoted, so a secret the shell cannot rebuild, or a target's echo of
 * one in a value it sent back, shows as [REDACTED]; never the variables' names, the method, the
 * query's parameter names or the path's segments that `template` (the operation's path template)
 * writes literally.
 */
export function curlFor(
  base: URL,
  request: Pick<PreparedRequest, "method" | "path" | "headers" | "body">,
  secrets: string | readonly CurlSecret[],
  mask: (text: string) => string = (t) => t,
  template?: string,
): string {
  const list: readonly CurlSecret[] =
    typeof secrets === "string" ? [{ value: secrets, expansion: TOKEN_VAR }] : secrets.filter((s) => s.value !== "");
  // An apiKey in the query: the command takes it from the environment instead, when its form-encoded
  // spelling is the secret itself. Otherwise the shell cannot encode it, and the mask hides it.
  const inUrl = list.filter((s) => new URLSearchParams({ k: s.value }).toString().slice(2) === s.value);
  const parts = ["curl", "-sS", "-i", "-X", request.method, word(urlPieces(base, request.path, inUrl, template), mask)];
  // Each secret as written, and base64-encoded (as in Basic credentials).
  const forms = [
    ...list,
    ...list.map((s) => ({
      value: Buffer.from(s.value).toString("base64"),
      expansion: `$(printf %s "${s.expansion}" | base64)`,
    })),
  ];
  for (const [name, value] of Object.entries(request.headers))
    parts.push("-H", word(withSecrets(`${name}: ${value}`, forms), mask));
  if (request.body === undefined) return parts.join(" ");
  const text = request.body.toString("utf8");
  if (Buffer.from(text, "utf8").equals(request.body))
    return [...parts, "--data-binary", shellQuote(mask(text))].join(" ");
  // Not UTF-8: send the exact bytes through base64 (masked too: base64 carries a long secret's spelling).
  const encoded = mask(request.body.toString("base64"));
  return `printf %s ${shellQuote(encoded)} | base64 -d | ${[...parts, "--data-binary", "@-"].join(" ")}`;
}

/** Braced, so a letter after it cannot extend the variable's name (`${X}t`, not `$Xt`). */
const TOKEN_VAR = "${PLANTSTORE_TOKEN}";

/** A part of a shell word: text to mask, text kept as it is, or a variable's expansion. */
type Piece = { readonly mask: string } | { readonly keep: string } | { readonly expansion: string };

/**
 * One shell word from its pieces: single-quoted when no variable is expanded, else double-quoted
 * with the literal text's `"`, `\`, `` ` `` and `$` escaped, so the shell rebuilds exactly the
 * original text unless the mask hid something.
 */
function word(pieces: readonly Piece[], mask: (text: string) => string): string {
  const text = (p: Piece): string => ("mask" in p ? mask(p.mask) : "keep" in p ? p.keep : p.expansion);
  if (!pieces.some((p) => "expansion" in p)) return shellQuote(pieces.map(text).join(""));
  const escaped = pieces.map((p) => ("expansion" in p ? p.expansion : text(p).replace(/(["\\`$])/g, "\\$1")));
  return `"${escaped.join("")}"`;
}

/**
 * The URL's pieces: the target as given (masked), the path's segments (those of the template kept,
 * the others masked, a secret in them expanded), the query's names kept and its values masked or
 * expanded.
 */
function urlPieces(base: URL, target: string, secrets: readonly CurlSecret[], template?: string): Piece[] {
  const pieces: Piece[] = [{ mask: joinUrl(base, "") }];
  const q = target.indexOf("?");
  const segments = (q < 0 ? target : target.slice(0, q)).split("/");
  const literal = template?.split("/");
  segments.forEach((segment, i) => {
    if (i > 0) pieces.push({ keep: "/" });
    const kept = literal?.length === segments.length && !literal[i]!.includes("{") && literal[i] === segment;
    pieces.push(...(kept ? [{ keep: segment }] : withSecrets(segment, secrets)));
  });
  if (q < 0) return pieces;
  pieces.push({ keep: "?" });
  target
    .slice(q + 1)
    .split("&")
    .forEach((pair, i) => {
      if (i > 0) pieces.push({ keep: "&" });
      const eq = pair.indexOf("=");
      if (eq >= 0) pieces.push({ keep: pair.slice(0, eq + 1) });
      pieces.push(...withSecrets(pair.slice(eq + 1), secrets));
    });
  return pieces;
}

/**
 * `text` as pieces: every secret (the longest first where they overlap; a short one only as a whole
 * token) as its expansion, the rest to mask.
 */
function withSecrets(text: string, secrets: readonly CurlSecret[]): Piece[] {
  const found = secrets.filter((s) => s.value !== "" && text.includes(s.value));
  if (found.length === 0) return [{ mask: text }];
  found.sort((a, b) => b.value.length - a.value.length);
  const expansion = new Map(found.map((s) => [s.value, s.expansion]));
  const pattern = new RegExp(
    found.map((s) => occurrence(s.value, [...s.value].length >= WHOLE_TOKEN_BELOW)).join("|"),
    "g",
  );
  const pieces: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    pieces.push({ mask: text.slice(last, m.index) }, { expansion: expansion.get(m[0])! });
    last = m.index + m[0].length;
  }
  pieces.push({ mask: text.slice(last) });
  return pieces;
}

/**
 * A command curlFor made, masked again (with secrets it was not masked with): every part but the
 * expansions of the named variables, so `${PLANTSTORE_TOKEN}` survives a token such as `plant`.
 */
export function maskCommand(command: string, mask: (text: string) => string, variables: readonly string[]): string {
  if (variables.length === 0) return mask(command);
  const names = variables.map(escapeRegExp).join("|");
  const expansion = new RegExp(
    `\\$\\(printf %s "\\$\\{(?:${names})\\}" \\| [^)]*\\)|\\$\\{(?:${names})(?:%\\?)?\\}`,
    "g",
  );
  let out = "";
  let last = 0;
  for (const m of command.matchAll(expansion)) {
    out += mask(command.slice(last, m.index)) + m[0];
    last = m.index + m[0].length;
  }
  return out + mask(command.slice(last));
}
