import { type Address, type Hex, HttpRequestError, keccak256, numberToHex, parseTransaction, TimeoutError, toHex } from 'viem'
import type { NodeReceipt, NodeTx, SimBlock } from './chainRecords.ts'
import type { Random } from './random.ts'
import { blockJson, logJson, receiptJson, txJson } from './simNodeJson.ts'

export type { NodeReceipt, NodeTx, SimBlock }

/** `settle(bytes32 order)`: the one call the simulated Broker knows. */
export const settleSelector = '0x5e77e15e'
/** The topic of the simulated Broker's `Settled(bytes32 order)` log. */
export const settledTopic = keccak256(toHex('Settled(bytes32)'))

/** An order the world registered with the node: it settles once, and not at or after `expiresAt` (virtual ms) when set. */
export type SimOrder = { hash: Hex; expiresAt?: number | undefined }

/** The faults the node shows while they are switched on (the world's schedule switches them). */
export type NodeFaults = {
  /** eth_sendRawTransaction pools the tx, then the answer is lost (a transport error). */
  loseSendAnswers: boolean
  /** eth_sendRawTransaction is refused outright (a proven refusal: nothing pooled). */
  refuseSends: boolean
  /** Every request fails with a timeout before it reaches the node. */
  timeouts: boolean
  /** Reads of the head and of `latest` come, each by chance, from a node a block behind. */
  lagReads: boolean
  /** The newest block's receipts and logs are not served yet (its txs are found by hash). */
  lateReceipts: boolean
  /** Blocks mined now are indexed this many ms later: their txs, receipts and logs are not found by hash until then (0: at once). */
  indexLagMs: number
}

/**
 * A simulated EVM node for the relayer's money path, answering the JSON-RPC methods the
 * submitter uses through a viem `custom` transport: the gas keys' nonces and balances
 * (one key per relayer process), a pool, blocks mined when the world says, receipts and
 * logs, reorgs of any depth, and the faults real nodes show (lost answers, refusals,
 * timeouts, lagging reads, late receipts, pool drops, base fee spikes). The only contract
 * is a Broker whose `settle(order)` succeeds once per order, before its expiry, and
 * reverts otherwise. Signatures are not checked (the simulator's signer makes none): a
 * tx's sender is the key its stand-in signature names (simSigner.ts).
 *
 * @example
 * const node = createSimNode({ chainId: 421614, keys: [key], broker, random, now: () => time.now() })
 * node.addOrder({ hash })
 * const answer = await node.request('eth_blockNumber', [])
 */
export function createSimNode(options: { chainId: number; keys: readonly Address[]; broker: Address; random: Random; now: () => number; balance?: bigint; baseFee?: bigint; perBlock?: number }) {
  const { chainId, broker, random, now } = options
  const keys = options.keys.map((key) => key.toLowerCase() as Address)
  const perBlock = options.perBlock ?? 64
  const startBalance = options.balance ?? 10n ** 21n
  const faults: NodeFaults = { loseSendAnswers: false, refuseSends: false, timeouts: false, lagReads: false, lateReceipts: false, indexLagMs: 0 }
  const orders = new Map<Hex, SimOrder>()
  let baseFee = options.baseFee ?? 1_000_000n
  const tip = 100_000n
  let salt = 0
  const noNonces = new Map(keys.map((key) => [key, 0]))
  const genesis: SimBlock = { number: 0, hash: blockHash(0, 0), parentHash: `0x${'00'.repeat(32)}`, timestamp: Math.floor(now() / 1000), baseFee, txs: [], receipts: [], nonceAfter: noNonces, indexedAt: 0 }
  const blocks: SimBlock[] = [genesis]
  /** Each key's pooled txs by nonce. */
  const pools = new Map(keys.map((key) => [key, new Map<number, NodeTx>()]))
  const poolOf = (key: Address) => pools.get(key) ?? unknownKey(key)
  /** Every tx the node took into its pool, by hash. */
  const seen = new Map<Hex, NodeTx>()
  /** Every tx signed, by hash: whether it would have reverted at the head when it was signed. */
  const atSigning = new Map<Hex, boolean>()
  // State after the head: each key's nonce and balance, the orders settled (by which tx).
  let state = { nonces: new Map(noNonces), balances: new Map(keys.map((key) => [key, startBalance])), settled: new Map<Hex, Hex>() }
  const nonceOf = (key: Address) => state.nonces.get(key) ?? unknownKey(key)

  /** A block's hash: its number and the how-manieth block the node made, so a block mined again after a reorg has another. */
  function blockHash(number: number, nth: number): Hex {
    return `0x${number.toString(16).padStart(32, '0')}${nth.toString(16).padStart(32, '0')}`
  }
  const head = () => blocks[blocks.length - 1]!

  /** What running the tx on `settled` would do at `at` (virtual ms). */
  function outcome(tx: NodeTx, settled: Map<Hex, Hex>, at: number): 'success' | 'reverted' {
    if (tx.order === undefined) return 'success'
    const order = orders.get(tx.order)
    if (!order || settled.has(tx.order)) return 'reverted'
    if (order.expiresAt !== undefined && at >= order.expiresAt) return 'reverted'
    return 'success'
  }

  // Each signed tx is decoded as it is signed, and again each time it is sent: once is enough.
  const decoded = new Map<Hex, NodeTx>()
  function decode(raw: Hex): NodeTx {
    const known = decoded.get(raw)
    if (known) return known
    const tx = decodeOnce(raw)
    decoded.set(raw, tx)
    return tx
  }

  function decodeOnce(raw: Hex): NodeTx {
    const parsed = parseTransaction(raw)
    if (parsed.type !== 'eip1559' || parsed.chainId !== chainId) throw rpcError(-32000, 'invalid chain id')
    const data = (parsed.data ?? '0x').toLowerCase() as Hex
    const to = (parsed.to ?? '0x').toLowerCase() as Address
    const order = to === broker.toLowerCase() && data.startsWith(settleSelector) && data.length === 74 ? (`0x${data.slice(10)}` as Hex) : undefined
    const from = keys[Number(BigInt(parsed.s ?? '0x1')) - 1]
    if (!from) throw rpcError(-32000, 'invalid sender')
    return { hash: keccak256(raw), raw, from, nonce: parsed.nonce ?? 0, to, data, gas: parsed.gas ?? 0n, maxFeePerGas: parsed.maxFeePerGas ?? 0n, maxPriorityFeePerGas: parsed.maxPriorityFeePerGas ?? 0n, order }
  }

  function admit(tx: NodeTx): void {
    if (tx.nonce < nonceOf(tx.from)) throw rpcError(-32000, 'nonce too low')
    const pool = poolOf(tx.from)
    const pooled = pool.get(tx.nonce)
    if (pooled?.hash === tx.hash) throw rpcError(-32000, 'already known')
    if (pooled && (tx.maxFeePerGas * 10n < pooled.maxFeePerGas * 11n || tx.maxPriorityFeePerGas * 10n < pooled.maxPriorityFeePerGas * 11n)) {
      throw rpcError(-32000, 'replacement transaction underpriced')
    }
    if (tx.gas * tx.maxFeePerGas > state.balances.get(tx.from)!) throw rpcError(-32000, 'insufficient funds for gas * price + value')
    pool.set(tx.nonce, tx)
    if (!seen.has(tx.hash)) seen.set(tx.hash, tx)
  }

  /**
   * Mines the next block: each key's pooled txs from its nonce on, in order, while each
   * pays the base fee; the keys take turns, one tx each, in the order they were given.
   */
  function mine(): void {
    const parent = head()
    const txs: NodeTx[] = []
    const receipts: NodeReceipt[] = []
    const nonces = new Map(state.nonces)
    const balances = new Map(state.balances)
    const at = now()
    const settled = state.settled
    let took = true
    while (took && txs.length < perBlock) {
      took = false
      for (const key of keys) {
        if (txs.length >= perBlock) break
        const nonce = nonces.get(key)!
        const pool = poolOf(key)
        const tx = pool.get(nonce)
        if (!tx || tx.maxFeePerGas < baseFee) continue
        pool.delete(nonce)
        const status = outcome(tx, settled, at)
        const gasUsed = tx.order === undefined ? 21_000n : status === 'success' ? 80_000n : 40_000n
        const price = baseFee + (tx.maxPriorityFeePerGas < tx.maxFeePerGas - baseFee ? tx.maxPriorityFeePerGas : tx.maxFeePerGas - baseFee)
        balances.set(key, balances.get(key)! - gasUsed * price)
        const logs = status === 'success' && tx.order ? [{ address: broker, topics: [settledTopic, tx.order], data: '0x' as Hex, logIndex: 0 }] : []
        if (status === 'success' && tx.order) settled.set(tx.order, tx.hash)
        txs.push(tx)
        receipts.push({ hash: tx.hash, status, gasUsed, effectiveGasPrice: price, logs })
        nonces.set(key, nonce + 1)
        took = true
      }
    }
    const number = parent.number + 1
    blocks.push({ number, hash: blockHash(number, ++salt), parentHash: parent.hash, timestamp: Math.floor(at / 1000), baseFee, txs, receipts, nonceAfter: nonces, indexedAt: at + faults.indexLagMs })
    state = { nonces, balances, settled }
  }

  /** Takes the newest `depth` blocks off the chain; their txs go back to the pool (those still valid), to be mined again. */
  function reorg(depth: number): void {
    const undone = blocks.splice(Math.max(1, blocks.length - depth))
    // The state again from the blocks that stay.
    const settled = new Map<Hex, Hex>()
    const balances = new Map(keys.map((key) => [key, startBalance]))
    for (const block of blocks) {
      block.receipts.forEach((receipt, i) => {
        const from = block.txs[i]!.from
        balances.set(from, balances.get(from)! - receipt.gasUsed * receipt.effectiveGasPrice)
        const order = receipt.logs[0]?.topics[1]
        if (order) settled.set(order, receipt.hash)
      })
    }
    state = { nonces: new Map(head().nonceAfter), balances, settled }
    for (const block of undone) for (const tx of block.txs) if (!poolOf(tx.from).has(tx.nonce)) poolOf(tx.from).set(tx.nonce, tx)
  }

  /** Drops one pooled tx, of any key (a pool that evicts), chosen by chance. */
  function dropOne(): void {
    const pooled = [...pools].flatMap(([key, pool]) => [...pool.keys()].map((nonce) => [key, nonce] as const))
    if (pooled.length === 0) return
    const [key, nonce] = random.pick(pooled)
    poolOf(key).delete(nonce)
  }

  /** Where the tx was mined, as a lookup by hash finds it (not before its block is indexed). */
  function findMined(hash: Hex): { block: SimBlock; index: number } | undefined {
    for (let i = blocks.length - 1; i >= 1; i--) {
      if (blocks[i]!.indexedAt > now()) continue
      const index = blocks[i]!.txs.findIndex((tx) => tx.hash === hash)
      if (index >= 0) return { block: blocks[i]!, index }
    }
    return undefined
  }

  /** The block a read of `latest` sees: the head, or by chance one behind while reads lag. */
  function readHead(): SimBlock {
    if (faults.lagReads && blocks.length > 1 && random.chance(0.5)) return blocks[blocks.length - 2]!
    return head()
  }

  const served = (block: SimBlock) => !(faults.lateReceipts && block === head()) && block.indexedAt <= now()

  function blockAt(tag: unknown): SimBlock | undefined {
    if (tag === 'latest' || tag === 'safe' || tag === 'finalized' || tag === undefined) return readHead()
    if (tag === 'earliest') return genesis
    if (tag === 'pending') return head()
    if (typeof tag === 'string') return blocks[Number(BigInt(tag))]
    if (typeof tag === 'object' && tag && 'blockNumber' in tag) return blocks[Number(BigInt((tag as { blockNumber: Hex }).blockNumber))]
    return undefined
  }

  function logs(filter: { blockHash?: Hex; fromBlock?: Hex; toBlock?: Hex; address?: Address | Address[] }) {
    const addresses = (Array.isArray(filter.address) ? filter.address : filter.address ? [filter.address] : []).map((a) => a.toLowerCase())
    const chosen = filter.blockHash ? blocks.filter((block) => block.hash === filter.blockHash) : blocks.slice(Number(BigInt(filter.fromBlock ?? '0x0')), Number(BigInt(filter.toBlock ?? numberToHex(head().number))) + 1)
    return chosen.filter(served).flatMap((block) =>
      block.receipts.flatMap((receipt, index) => receipt.logs.filter((log) => addresses.length === 0 || addresses.includes(log.address.toLowerCase())).map((log) => logJson(block, index, log))),
    )
  }

  /** One JSON-RPC call, as the node answers it (or the fault it shows). */
  function request(method: string, params: unknown[]): unknown {
    if (faults.timeouts) throw new TimeoutError({ body: { method }, url: 'sim://node' })
    switch (method) {
      case 'eth_chainId':
        return numberToHex(chainId)
      case 'eth_blockNumber':
        return numberToHex(readHead().number)
      case 'eth_getBlockByNumber': {
        const block = blockAt(params[0])
        return block ? blockJson(block) : null
      }
      case 'eth_getTransactionCount': {
        const address = (params[0] as Address).toLowerCase() as Address
        if (params[1] === 'pending') {
          let nonce = nonceOf(address)
          while (poolOf(address).has(nonce)) nonce++
          return numberToHex(nonce)
        }
        const block = blockAt(params[1])
        if (!block) throw rpcError(-32000, 'header not found')
        return numberToHex(block.nonceAfter.get(address) ?? unknownKey(address))
      }
      case 'eth_sendRawTransaction': {
        const tx = decode(params[0] as Hex)
        if (faults.refuseSends) throw rpcError(-32000, 'transaction type not supported')
        admit(tx)
        if (faults.loseSendAnswers) throw new HttpRequestError({ url: 'sim://node', details: 'the connection closed before the answer' })
        return tx.hash
      }
      case 'eth_getTransactionByHash': {
        const hash = (params[0] as Hex).toLowerCase() as Hex
        const mined = findMined(hash)
        if (mined) return txJson(mined.block.txs[mined.index]!, chainId, mined)
        for (const pool of pools.values()) for (const tx of pool.values()) if (tx.hash === hash) return txJson(tx, chainId)
        return null
      }
      case 'eth_getTransactionReceipt': {
        const mined = findMined((params[0] as Hex).toLowerCase() as Hex)
        return mined && served(mined.block) ? receiptJson(mined.block, mined.index) : null
      }
      case 'eth_getLogs':
        return logs(params[0] as Parameters<typeof logs>[0])
      case 'eth_maxPriorityFeePerGas':
        return numberToHex(tip)
      case 'eth_gasPrice':
        return numberToHex(baseFee + tip)
      case 'eth_estimateGas':
        return numberToHex(100_000)
      case 'eth_call':
        return '0x'
      case 'eth_getBalance':
        return numberToHex(state.balances.get((params[0] as Address).toLowerCase() as Address) ?? 0n)
      default:
        throw rpcError(-32601, `the method ${method} does not exist/is not available`)
    }
  }

  return {
    request,
    faults,
    mine,
    reorg,
    dropOne,
    addOrder: (order: SimOrder) => orders.set(order.hash.toLowerCase() as Hex, order),
    /** The base fee the next blocks charge. */
    setBaseFee(fee: bigint) {
      baseFee = fee
    },
    get baseFee() {
      return baseFee
    },
    /** The canonical chain's blocks (genesis first), for the invariants. */
    blocks: () => blocks as readonly SimBlock[],
    /** Every tx the node took into its pool. */
    seen: () => seen as ReadonlyMap<Hex, NodeTx>,
    /** A tx just signed: whether it would revert at the head now is kept, for `revertedAtSigning`. Returns the tx as the node reads it. */
    signed(raw: Hex): Readonly<NodeTx> {
      const tx = decode(raw)
      if (!atSigning.has(tx.hash)) atSigning.set(tx.hash, outcome(tx, state.settled, now()) === 'reverted')
      return tx
    },
    /** Whether the tx would have reverted at the head when it was signed (undefined: never signed by the relayer). */
    revertedAtSigning: (hash: Hex) => atSigning.get(hash),
    /** A key's nonce at the head. */
    nonceOf,
    /** How many txs of the key wait in the pool. */
    pooledOf: (key: Address) => poolOf(key.toLowerCase() as Address).size,
    /** Which tx settled the order on the canonical chain. */
    settledBy: (order: Hex) => state.settled.get(order.toLowerCase() as Hex),
  }
}

export type SimNode = ReturnType<typeof createSimNode>

/** A key the node was not made with: the world's mistake, not a fault. */
function unknownKey(key: Address): never {
  throw new Error(`the simulated node has no key ${key}`)
}

/** A node's JSON-RPC error, as viem meets one from a custom transport. */
function rpcError(code: number, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code })
}
