/**
 * The access log: one line per request, `METHOD PATH STATUS CODE`, and nothing else:
 * no query string, no client address, no body (SPEC.md 4.3); written by the request
 * observer (http/requestObserver.ts). A route sets `code` for its line. The path is hono's
 * percent-decoded one, so a control character, a space or a line separator in it is
 * written back percent-encoded: `/%0Afake` can never forge a second log line.
 */
export type AccessLogVariables = { code: string | undefined }

/** Longest path written to the log; the rest is cut (a path is an attacker's choice). */
const maxLoggedPath = 256

/** `path` with C0/C1 controls, DEL, whitespace and Unicode line/paragraph separators percent-encoded, cut at 256 characters. */
export function loggablePath(path: string): string {
  const escaped = path.replace(/[\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200f\u2028-\u202f\u205f\u3000\ufeff]/g, (char) => encodeURIComponent(char))
  return escaped.length > maxLoggedPath ? `${escaped.slice(0, maxLoggedPath)}…` : escaped
}
