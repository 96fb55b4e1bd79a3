import { statusPage } from './shell.ts'

const body = `
<h1>order-relay indexer</h1>
<p class="sub" id="identity">…</p>
<div class="grid">
  <div class="card"><h2>Indexed through</h2><div class="value" id="indexed">…</div><div class="small" id="progress"></div><div class="bar"><div id="bar"></div></div></div>
  <div class="card"><h2>Head</h2><div class="value" id="head">…</div></div>
  <div class="card"><h2>Lag</h2><div class="value" id="lag">…</div></div>
  <div class="card"><h2>Stale</h2><div class="value" id="stale">…</div></div>
  <div class="card"><h2>Events in recent blocks</h2><table id="kinds"></table><div class="small" id="window"></div></div>
  <div class="card"><h2>Events held</h2><div class="value" id="held">…</div></div>
  <div class="card"><h2>Last reorg</h2><div class="value small" id="reorg">…</div></div>
</div>`

const render = `function (s) {
  set('identity', 'chain ' + s.chainId + ' · from block ' + s.deployedAt)
  set('indexed', s.indexedThrough)
  var from = Number(s.deployedAt), done = Number(s.indexedThrough) - from + 1, total = Number(s.head) - from + 1
  var pct = total > 0 ? Math.min(100, Math.max(0, 100 * done / total)) : 100
  set('progress', pct.toFixed(1) + '% of the blocks since deployment')
  $('bar').style.width = pct + '%'
  set('head', s.head)
  set('lag', s.lagBlocks + ' blocks')
  set('stale', s.stale ? 'stale' : 'fresh', s.stale ? 'bad' : 'ok')
  rows('kinds', Object.entries(s.recentEvents.byName), 'none')
  set('window', 'blocks ' + s.recentEvents.fromBlock + '–' + s.head)
  set('held', String(s.eventsHeld) + (s.truncated ? ' (oldest dropped)' : ''))
  set('reorg', s.lastReorg ? 'above block ' + s.lastReorg.forkPoint + ', ' + s.lastReorg.depth + ' blocks deep, at ' + s.lastReorg.at : 'none since start')
}`

/** The indexer's status page (`GET /`), fed by `GET /status`. */
export const indexerPage = statusPage('order-relay indexer', body, render)
