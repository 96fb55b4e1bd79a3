// The summary of a relayer's CPU profile by part (scripts/bench/lib/profileModules.ts),
// on a profile whose stacks are known: what profile-settlement.ts prints after a profiled run.
import { expect, test } from 'bun:test'
import { type CpuProfile, profileModules } from '../../scripts/bench/lib/profileModules.ts'

const root = '/work/order-relay'
const frame = (id: number, url: string, children: number[] = []) => ({ id, callFrame: { functionName: `f${id}`, url }, children })

test('each sample goes to the first part its stack holds (the journal, its read-back, the JSON-RPC client), else to its innermost project frame, else to the runtime', () => {
  const profile: CpuProfile = {
    nodes: [
      frame(1, '', [2, 5, 8]),
      frame(2, `file://${root}/src/relayer/http/brokerRoute.ts`, [3, 6]),
      frame(3, `file://${root}/src/relayer/journal/openJournal.ts`, [4, 9]),
      frame(4, 'bun:sqlite'),
      // An answer read after an await: viem's frames alone.
      frame(5, `file://${root}/node_modules/viem/_esm/clients/transports/http.js`),
      frame(6, `file://${root}/src/relayer/economics/judgeOrder.ts`, [7]),
      // A viem helper called by the project's code counts to that code.
      frame(7, `file://${root}/node_modules/viem/_esm/utils/encoding/toHex.js`),
      frame(8, ''),
      frame(9, `file://${root}/src/relayer/journal/parseEip1559.ts`),
    ],
    samples: [4, 4, 5, 7, 8, 9, 2, 3],
  }
  expect(profileModules(profile)).toEqual([
    { name: 'the journal (SQLite)', share: 3 / 8 },
    { name: 'the JSON-RPC client (viem: requests, fetch, answers)', share: 1 / 8 },
    { name: 'economics', share: 1 / 8 },
    { name: 'runtime: garbage collection, microtasks, module loading', share: 1 / 8 },
    { name: 'signed txs read back (journal/parseEip1559.ts)', share: 1 / 8 },
    { name: 'POST /broker: route, body, access line, metrics, pipeline', share: 1 / 8 },
  ])
  expect(profileModules({ nodes: [frame(1, '')], samples: [] })).toEqual([])
})
