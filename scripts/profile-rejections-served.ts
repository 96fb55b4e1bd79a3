// `bun scripts/profile-rejections-served.ts [--body belowFloor|malformed] [--rounds 20] [--requests 4000] [--stages least,leastDeadline,leastRead,route,relayer]`:
// what a rejection costs the relayer's `POST /broker` over real HTTP against the least
// relayer's route, one step at a time, all served by one process to its own `fetch`
// client in alternating rounds (bench/lib/servedRejections.ts). Prints µs of the
// process's CPU per request for each route (the client's share included, the same for
// all) and, round by round, what each adds to the least's. Not a benchmark row: the
// numbers behind the rejection section of docs/benchmarks.md, steadier than servers in
// separate processes loaded in turn (scripts/profile-rejections-http.ts). No chain needed.
import { parseArgs } from 'node:util'
import { wholeFrom } from './bench/lib/flags.ts'
import type { RejectionBody } from './bench/lib/rejectionFixtures.ts'
import { measureServedRejections, type ServedStage, servedStages } from './bench/lib/servedRejections.ts'

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { body: { type: 'string', default: 'belowFloor' }, rounds: { type: 'string', default: '20' }, requests: { type: 'string', default: '4000' }, stages: { type: 'string' } },
})
if (values.body !== 'belowFloor' && values.body !== 'malformed') throw new Error(`--body takes belowFloor or malformed (got ${values.body})`)
const stages = (values.stages?.split(',') ?? [...servedStages]) as ServedStage[]
const unknown = stages.filter((stage) => !(servedStages as readonly string[]).includes(stage))
if (unknown.length > 0) throw new Error(`unknown stage ${unknown.join(', ')}; the stages are ${servedStages.join(', ')}`)
const rounds = wholeFrom(values.rounds, 1, '--rounds')
const requests = wholeFrom(values.requests, 1, '--requests')

const costs = await measureServedRejections({ body: values.body as RejectionBody, rounds, requests, stages })
const load = (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')
console.log(`a ${values.body} rejection over HTTP, one process serving and loading every route; medians of ${rounds} rounds of ${requests} requests; load ${load}`)
console.log('| route | µs of CPU per request (server + client) | − the least\'s, µs (median of the rounds\' differences) | answers |\n|---|---|---|---|')
for (const cost of costs) {
  const answers = Object.entries(cost.statuses).map(([status, count]) => `${status}: ${count}`).join(', ')
  console.log(`| ${cost.stage} | ${cost.us.toFixed(1)} | ${cost.stage === 'least' ? '—' : cost.overLeastUs.toFixed(2)} | ${answers} |`)
}
