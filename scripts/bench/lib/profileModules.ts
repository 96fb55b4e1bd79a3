/** A CPU profile as Bun's `--cpu-prof` writes it (Chrome's `.cpuprofile`), the fields read here. */
export type CpuProfile = {
  nodes: ReadonlyArray<{ id: number; callFrame: { functionName: string; url: string }; children?: readonly number[] }>
  /** The node on top of the stack at each sample. */
  samples: readonly number[]
}

/** A part of the relayer's main thread, by the files its frames come from. */
type Part = { name: string; holds: (url: string) => boolean }

const file = (...parts: string[]) => (url: string) => parts.some((part) => url.includes(part))

/**
 * Parts a sample goes to when its stack holds one of their frames anywhere, first match
 * first: the journal, its reading back of signed txs, the signer thread's messages and the
 * JSON-RPC client are called from everywhere, so they are told apart by what is on the stack.
 */
const byStack: readonly Part[] = [
  { name: 'signed txs read back (journal/parseEip1559.ts)', holds: file('/src/relayer/journal/parseEip1559.ts') },
  { name: 'messages to and from the signer thread', holds: file('/src/relayer/submitter/signerThreadClient.ts') },
  { name: 'the journal (SQLite)', holds: file('/src/relayer/journal/', 'bun:sqlite') },
  {
    name: 'the JSON-RPC client (viem: requests, fetch, answers)',
    holds: file('/src/metrics/rpcTransport.ts', 'viem/_esm/clients/transports/', 'viem/_esm/utils/rpc/', 'viem/_esm/utils/promise/', 'viem/_esm/utils/buildRequest.js'),
  },
]

/** Parts a sample goes to by the innermost frame of the project's own code on its stack. */
const byOwnFrame: readonly Part[] = [
  { name: 'economics', holds: file('/src/relayer/economics/') },
  { name: 'simulation batches', holds: file('/src/relayer/simulation/', '/src/chain/intrinsicGas.ts') },
  { name: 'receipt watcher, slot life, batch sender, nonce keeper', holds: file('/src/relayer/submitter/') },
  { name: 'steps: answers, settlements decoded', holds: file('/src/relayer/steps/', '/src/relayer/settlementFinder.ts', '/src/chain/', '/src/wire/') },
  { name: 'POST /broker: route, body, access line, metrics, pipeline', holds: file('/src/relayer/http/', '/src/relayer/pipeline.ts', '/src/relayer/edge/', '/src/metrics/', '/src/cli/lib/', '/src/shared/') },
  { name: 'the rest of the project (start-up: configuration, key)', holds: file('/src/') },
]

const runtime = 'runtime: garbage collection, microtasks, module loading'

/**
 * Where a relayer's main thread went, from its CPU profile: each sample goes to the first
 * part (`byStack`) one of its stack's frames belongs to, else to the part of the innermost
 * frame of the project's own code (`byOwnFrame`), else to the runtime. Shares of the
 * samples, largest first. The samples see JavaScript and what it calls, not the native
 * work between (Bun's HTTP server reading sockets), so the shares are of the former.
 *
 * @example
 * const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile
 * for (const { name, share } of profileModules(profile)) console.log(`${(share * 100).toFixed(1)} % ${name}`)
 */
export function profileModules(profile: CpuProfile): Array<{ name: string; share: number }> {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
  const parentOf = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id)
  const stackOf = (id: number): string[] => {
    const urls: string[] = []
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) urls.push(nodes.get(at)?.callFrame.url ?? '')
    return urls
  }
  const named = new Map<number, string>()
  const counts = new Map<string, number>()
  for (const sample of profile.samples) {
    let name = named.get(sample)
    if (name === undefined) {
      name = partOf(stackOf(sample))
      named.set(sample, name)
    }
    counts.set(name, (counts.get(name) ?? 0) + 1)
  }
  const total = profile.samples.length
  return [...counts].map(([name, count]) => ({ name, share: total ? count / total : 0 })).sort((a, b) => b.share - a.share)
}

/** The part of one sample's stack, innermost frame first. */
function partOf(urls: readonly string[]): string {
  for (const part of byStack) if (urls.some(part.holds)) return part.name
  const own = urls.find((url) => url.includes('/src/') && !url.includes('node_modules'))
  if (own) return byOwnFrame.find((part) => part.holds(own))!.name
  return runtime
}
