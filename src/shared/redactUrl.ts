/**
 * A URL fit for a message or a file: no user name or password, no query string, no
 * fragment (hosted RPC providers put API keys in any of them). The path is kept up to
 * its first segment that looks like a key (a long token), which is cut too:
 * `https://user:pw@rpc.example/v2/abcdef0123456789abcdef?key=x` → `https://rpc.example/v2/***`.
 * Text that is not a URL becomes `<RPC URL not shown>`.
 */
export function redactUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return '<RPC URL not shown>'
  }
  const kept: string[] = []
  for (const segment of url.pathname.split('/').filter(Boolean)) {
    if (looksLikeKey(segment)) {
      kept.push('***')
      break
    }
    kept.push(segment)
  }
  const path = kept.length > 0 ? `/${kept.join('/')}` : ''
  return `${url.protocol}//${url.host}${path}`
}

/** Every http(s)/ws(s) URL inside `text` passed through `redactUrl` (for error messages from libraries). */
export function redactUrls(text: string): string {
  return text.replace(/\b(?:https?|wss?):\/\/[^\s"'<>]+/gi, (match) => redactUrl(match))
}

// A path segment of 20+ characters of letters/digits/-/_ is treated as an API key.
const looksLikeKey = (segment: string) => /^[A-Za-z0-9_-]{20,}$/.test(segment)
