import { describe, expect, test } from 'bun:test'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { createBalanceWatch } from '../../src/relayer/edge/balanceWatch.ts'
import { gasBreaker } from '../../src/relayer/edge/gasBreaker.ts'
import { refusalAnswer } from '../../src/relayer/edge/reject.ts'

describe('gasBreaker', () => {
  test('while paused: INSUFFICIENT_RELAYER_GAS (503); once resumed: nothing to say', () => {
    let paused = true
    const breaker = gasBreaker({ paused: () => paused })
    const refusal = breaker()
    expect(refusal).toEqual({
      code: 'INSUFFICIENT_RELAYER_GAS',
      message:
        'relayer gas balance is below its floor, so POST /broker is paused until it is topped up; try another relayer or run your own',
    })
    expect(refusalAnswer(refusal!).status).toBe(503)
    paused = false
    expect(breaker()).toBeUndefined()
  })
})

describe('createBalanceWatch', () => {
  /** A balance source the test scripts: a bigint answers, an Error throws. */
  function scripted(initial: bigint | Error) {
    let next: bigint | Error = initial
    let reads = 0
    return {
      set: (value: bigint | Error) => void (next = value),
      get reads() {
        return reads
      },
      readBalance: async () => {
        reads++
        if (next instanceof Error) throw next
        return next
      },
    }
  }

  test('opens below the floor, closes when topped up, logs each change once', async () => {
    const source = scripted(999n)
    const logger = createMemoryLogger()
    const watch = createBalanceWatch({ readBalance: source.readBalance, floorWei: 1000n, pollMs: 10, logger })
    expect(watch.state()).toBe('unknown')
    expect(watch.paused()).toBe(false)
    await watch.start()
    expect(watch.paused()).toBe(true)
    await Bun.sleep(50)
    source.set(1000n) // exactly the floor is enough
    await Bun.sleep(50)
    expect(watch.paused()).toBe(false)
    expect(watch.state()).toBe('ok')
    watch.stop()
    expect(logger.lines).toEqual([
      'warn: gas breaker: relayer balance 999 wei is below the floor 1000 wei; POST /broker paused until it is topped up',
      'gas breaker: relayer balance 1000 wei is back at or above the floor 1000 wei; POST /broker resumed',
    ])
  })

  test('a failing poll keeps the last state and is logged once per run of failures', async () => {
    const source = scripted(5n)
    const logger = createMemoryLogger()
    const watch = createBalanceWatch({ readBalance: source.readBalance, floorWei: 10n, pollMs: 10, logger })
    await watch.start()
    expect(watch.paused()).toBe(true)
    source.set(Object.assign(new Error('HTTP request failed.\nURL: http://secret-rpc.example/key'), { shortMessage: 'HTTP request failed.' }))
    await Bun.sleep(60)
    expect(watch.paused()).toBe(true)
    source.set(50n)
    await Bun.sleep(40)
    expect(watch.paused()).toBe(false)
    watch.stop()
    expect(logger.lines).toEqual([
      'warn: gas breaker: relayer balance 5 wei is below the floor 10 wei; POST /broker paused until it is topped up',
      'warn: gas breaker: balance poll failed (HTTP request failed.); keeping the last state (low) and retrying every 10 ms',
      'gas breaker: balance poll recovered',
      'gas breaker: relayer balance 50 wei is back at or above the floor 10 wei; POST /broker resumed',
    ])
  })

  test('a failing first poll leaves the breaker closed (state unknown)', async () => {
    const source = scripted(new Error('down'))
    const logger = createMemoryLogger()
    const watch = createBalanceWatch({ readBalance: source.readBalance, floorWei: 10n, pollMs: 10, logger })
    await watch.start()
    watch.stop()
    expect(watch.state()).toBe('unknown')
    expect(watch.paused()).toBe(false)
    expect(logger.lines).toEqual(['warn: gas breaker: balance poll failed (down); keeping the last state (unknown) and retrying every 10 ms'])
  })

  test('stop ends the polling', async () => {
    const source = scripted(100n)
    const watch = createBalanceWatch({ readBalance: source.readBalance, floorWei: 10n, pollMs: 5, logger: createMemoryLogger() })
    await watch.start()
    await Bun.sleep(30)
    watch.stop()
    const reads = source.reads
    expect(reads).toBeGreaterThan(1)
    await Bun.sleep(30)
    expect(source.reads).toBe(reads)
  })
})
