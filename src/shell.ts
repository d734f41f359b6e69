/**
 * Shell quoting for the commands the kit prints (the serve banner's curl, the harness's reproductions).
 * It sits beside errors.ts and paths.ts, below every layer, so the harness never imports the CLI.
 */

/** Single-quotes a word for a POSIX shell, so printed commands paste safely. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
