import { statusPage } from './shell.ts'

const body = `
<h1>order-relay relayer</h1>
<p class="sub" id="identity">…</p>
<div class="grid">
  <div class="card"><h2>Gas address</h2><div class="value small" id="address">…</div><div class="small" id="signer"></div></div>
  <div class="card"><h2>Balance</h2><div class="value" id="balance">…</div><div class="small" id="floor"></div></div>
  <div class="card"><h2>Fee floor</h2><div class="value" id="feeFloor">…</div></div>
  <div class="card"><h2>Settled per minute</h2><div class="value" id="settled">0</div><table class="small" id="outcomes"></table></div>
  <div class="card"><h2>Settlement latency (5 min)</h2><table id="latency"></table></div>
  <div class="card"><h2>Pending transactions</h2><div class="value" id="pending">…</div><div class="small" id="nonces"></div></div>
  <div class="card"><h2>In flight</h2><div class="value" id="inflight">0</div></div>
  <div class="card"><h2>Fees earned</h2><div class="value" id="earned">…</div><table class="small" id="earnedByToken"></table></div>
  <div class="card"><h2>Gas spent</h2><div class="value" id="spent">…</div><div class="small" id="net"></div></div>
  <div class="card"><h2>Last hour's gas</h2><div class="value" id="hour">…</div><div class="small" id="hourCap"></div><div class="bar"><div id="hourBar"></div></div></div>
  <div class="card"><h2>Runway</h2><div class="value" id="runway">…</div><div class="small" id="gasPrice"></div></div>
</div>`

// Kept as a plain function expression: it runs in the browser as written.
const render = `function (s) {
  set('identity', 'chain ' + s.chainId + ' · version ' + s.version + ' · up ' + Math.round(s.uptimeSeconds) + ' s')
  set('address', s.address)
  var g = s.signer
  set('signer', g ? 'signed by ' + g.kind + ' · ' + g.description + (g.up ? '' : ' — not signing, no new orders: ' + g.reason) : '')
  var low = s.balanceWei !== null && BigInt(s.balanceWei) < BigInt(s.gasFloorWei)
  set('balance', ether(s.balanceWei), low ? 'bad' : 'ok')
  set('floor', 'floor ' + ether(s.gasFloorWei) + (low ? ' — below the floor: not ready' : ''))
  set('feeFloor', s.feeFloorBps + ' bps')
  set('settled', String(s.ordersPerMinute.OK || 0))
  rows('outcomes', Object.entries(s.ordersPerMinute).filter(function (e) { return e[0] !== 'OK' }), 'no refusals')
  var l = s.latencySeconds
  rows('latency', [['p50', seconds(l.p50)], ['p90', seconds(l.p90)], ['p99', seconds(l.p99)], ['orders', l.count]], '')
  set('pending', s.pendingTransactions === null ? '–' : String(s.pendingTransactions))
  set('nonces', s.nonces ? 'nonce mined ' + s.nonces.latest + ' · pending ' + s.nonces.pending + (s.nonceGap === null ? '' : ' · gap ' + s.nonceGap) : '')
  set('inflight', String(s.inflight))
  var m = s.economics
  if (m) {
    set('earned', ether(m.feesEarnedWei))
    rows('earnedByToken', m.tokens.map(function (t) { return [t.token.slice(0, 10) + '…', t.feesEarned + ' units · ' + t.orders + ' orders'] }), 'no fee earned yet')
    set('spent', ether(m.gasSpentWei))
    var net = BigInt(m.netWei)
    set('net', 'net ' + (net < 0n ? '−' + ether(String(-net)) : ether(m.netWei)))
    set('hour', ether(m.lastHour.spentWei))
    var used = BigInt(m.lastHour.spentWei) + BigInt(m.lastHour.reservedWei)
    var capped = m.lastHour.capWei !== null
    set('hourCap', (capped ? 'cap ' + ether(m.lastHour.capWei) + ' · ' : 'no cap · ') + ether(m.lastHour.reservedWei) + ' held by pending txs')
    $('hourBar').style.width = capped ? Math.min(100, Number(used * 100n / BigInt(m.lastHour.capWei))) + '%' : '0'
    set('runway', m.runwayHours === null ? '–' : m.runwayHours > 48 ? Math.round(m.runwayHours / 24) + ' days' : m.runwayHours.toFixed(1) + ' h')
    set('gasPrice', m.gasPriceWei === null ? '' : 'gas price ' + (Number(m.gasPriceWei) / 1e9).toFixed(3) + ' gwei' + (m.maxFeePerGasWei === null ? '' : ' · cap ' + (Number(m.maxFeePerGasWei) / 1e9).toFixed(3) + ' gwei'))
  }
}`

/** The relayer's status page (`GET /`), fed by `GET /status`. */
export const relayerPage = statusPage('order-relay relayer', body, render)
