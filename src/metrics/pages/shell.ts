/**
 * The frame both status pages share: inline CSS and a script that polls a JSON
 * status route every second and hands the body to `render` (no CDN, no build step:
 * the page is a string inside the executable).
 */
export function statusPage(title: string, body: string, render: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
  :root { color-scheme: light dark; --fg: #1b1f24; --muted: #5b6570; --card: #f4f6f8; --ok: #1a7f37; --bad: #c0392b; --line: #d8dee4; }
  @media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9aa5b1; --card: #161b22; --line: #30363d; --ok: #3fb950; --bad: #f85149; } }
  body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; padding: 24px; color: var(--fg); }
  h1 { font-size: 20px; margin: 0 0 4px; }
  .sub { color: var(--muted); margin: 0 0 20px; font-size: 13px; }
  .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 12px; }
  .card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
  .card h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 0 0 6px; font-weight: 600; }
  .value { font-size: 22px; font-variant-numeric: tabular-nums; word-break: break-all; }
  .small { font-size: 13px; color: var(--muted); font-variant-numeric: tabular-nums; }
  .ok { color: var(--ok); } .bad { color: var(--bad); }
  table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
  td { padding: 2px 0; } td:last-child { text-align: right; }
  .bar { height: 8px; background: var(--line); border-radius: 4px; overflow: hidden; margin-top: 8px; }
  .bar > div { height: 100%; background: var(--ok); width: 0; }
  footer { margin-top: 20px; color: var(--muted); font-size: 12px; }
</style>
</head>
<body>
${body}
<footer>Updates every second from <a href="status">GET /status</a>. <span id="updated"></span></footer>
<script>
  function $(id) { return document.getElementById(id) }
  function set(id, text, cls) { var el = $(id); el.textContent = text; if (cls !== undefined) el.className = 'value ' + cls }
  function rows(id, entries, empty) {
    var el = $(id); el.textContent = ''
    if (entries.length === 0) { var tr = el.insertRow(); tr.insertCell().textContent = empty; return }
    entries.forEach(function (entry) { var tr = el.insertRow(); tr.insertCell().textContent = entry[0]; tr.insertCell().textContent = String(entry[1]) })
  }
  function ether(wei) { if (wei === null) return '…'; var w = BigInt(wei); var whole = w / 1000000000000000000n; var frac = (w % 1000000000000000000n).toString().padStart(18, '0').slice(0, 6); return whole + '.' + frac + ' ETH' }
  function seconds(s) { return s === null ? '–' : s < 1 ? Math.round(s * 1000) + ' ms' : s.toFixed(2) + ' s' }
  var render = ${render}
  async function tick() {
    try {
      var response = await fetch('status', { cache: 'no-store' })
      render(await response.json())
      $('updated').textContent = 'Last update ' + new Date().toLocaleTimeString() + '.'
    } catch (error) {
      $('updated').textContent = 'Cannot reach the server: ' + error
    }
  }
  tick(); setInterval(tick, 1000)
</script>
</body>
</html>
`
}
