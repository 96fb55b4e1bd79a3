import { AsyncLocalStorage } from 'node:async_hooks'

/** Who scheduled a timer: a simulated relayer process (its timers die with it) or the world. */
export type TimerOwner = { readonly name: string; alive: boolean }

type Timer = { id: number; at: number; seq: number; run: () => void; everyMs?: number; owner: TimerOwner | undefined; cleared: boolean }

/** A timer handle as Node's and Bun's look to the code that holds one. */
export type VirtualTimerHandle = { readonly id: number; ref(): VirtualTimerHandle; unref(): VirtualTimerHandle; hasRef(): boolean; refresh(): VirtualTimerHandle; [Symbol.toPrimitive](): number }

/**
 * Simulated time for code that runs unchanged: while installed, `setTimeout`,
 * `setInterval`, `setImmediate` (and their clears), `Date.now` and `performance.now`
 * are this clock's, which moves only when `step` runs the next timer. Between two timers
 * every promise continuation runs to its end (one real turn of the event loop drains
 * them), so a run is a sequence of timer firings in a fixed order: the same inputs give
 * the same steps. Timers are owned by the process that scheduled them (an
 * AsyncLocalStorage context follows promises and timers), so a crashed process's timers
 * never fire.
 *
 * @example
 * const time = createVirtualTime(Date.UTC(2026, 0, 1))
 * const uninstall = time.install()
 * setTimeout(() => console.log(Date.now()), 1_000)
 * await time.step() // runs it, Date.now() is 1 s later
 * uninstall()
 */
export function createVirtualTime(startMs: number) {
  let now = startMs
  let seq = 0
  let nextId = 1
  const timers: Timer[] = []
  const byId = new Map<number, Timer>()
  const owners = new AsyncLocalStorage<TimerOwner>()
  const real = {
    setTimeout: globalThis.setTimeout,
    clearTimeout: globalThis.clearTimeout,
    setInterval: globalThis.setInterval,
    clearInterval: globalThis.clearInterval,
    setImmediate: globalThis.setImmediate,
    clearImmediate: globalThis.clearImmediate,
    dateNow: Date.now,
    performanceNow: performance.now.bind(performance),
  }

  function handle(timer: Timer): VirtualTimerHandle {
    const self: VirtualTimerHandle = {
      id: timer.id,
      ref: () => self,
      unref: () => self,
      hasRef: () => true,
      refresh: () => {
        timer.at = now + (timer.everyMs ?? 0)
        return self
      },
      [Symbol.toPrimitive]: () => timer.id,
    }
    return self
  }

  function schedule(run: () => void, delayMs: number, everyMs?: number): VirtualTimerHandle {
    const owner = owners.getStore()
    const wait = Number.isFinite(delayMs) && delayMs > 0 ? Math.floor(delayMs) : 0
    const timer: Timer = { id: nextId++, at: now + wait, seq: seq++, run: owner ? () => owners.run(owner, run) : run, owner, cleared: false }
    if (everyMs !== undefined) timer.everyMs = Math.max(1, Math.floor(everyMs))
    timers.push(timer)
    byId.set(timer.id, timer)
    return handle(timer)
  }

  function clear(handle: unknown) {
    const id = typeof handle === 'number' ? handle : (handle as { id?: number } | undefined)?.id
    const timer = id === undefined ? undefined : byId.get(id)
    if (timer) {
      timer.cleared = true
      byId.delete(timer.id)
    }
  }

  /** The next timer to run: earliest first, then in the order scheduled. */
  function takeNext(): Timer | undefined {
    let best = -1
    for (let i = 0; i < timers.length; i++) {
      const timer = timers[i]!
      if (timer.cleared || (timer.owner && !timer.owner.alive)) continue
      const chosen = best >= 0 ? timers[best]! : undefined
      if (!chosen || timer.at < chosen.at || (timer.at === chosen.at && timer.seq < chosen.seq)) best = i
    }
    // Dead and cleared timers are dropped on the way.
    const next = best >= 0 ? timers[best] : undefined
    for (let i = timers.length - 1; i >= 0; i--) {
      const timer = timers[i]!
      if (timer === next || timer.cleared || (timer.owner && !timer.owner.alive)) timers.splice(i, 1)
    }
    return next
  }

  /** One real turn of the event loop: every promise continuation queued so far runs first. */
  const settle = () => new Promise<void>((resolve) => real.setImmediate(resolve))

  return {
    now: () => now,
    /** Runs `run` as `owner`: every timer it schedules, directly or after an await, is the owner's. */
    runAs<T>(owner: TimerOwner, run: () => T): T {
      return owners.run(owner, run)
    },
    /** Replaces the globals with this clock's; returns the function that puts the real ones back. */
    install(): () => void {
      const g = globalThis as unknown as Record<string, unknown>
      g.setTimeout = (run: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => schedule(() => run(...args), ms ?? 0)
      g.setInterval = (run: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => schedule(() => run(...args), ms ?? 0, ms ?? 0)
      g.setImmediate = (run: (...args: unknown[]) => void, ...args: unknown[]) => schedule(() => run(...args), 0)
      g.clearTimeout = clear
      g.clearInterval = clear
      g.clearImmediate = clear
      Date.now = () => now
      performance.now = () => now - startMs
      return () => {
        Object.assign(g, { setTimeout: real.setTimeout, clearTimeout: real.clearTimeout, setInterval: real.setInterval, clearInterval: real.clearInterval, setImmediate: real.setImmediate, clearImmediate: real.clearImmediate })
        Date.now = real.dateNow
        performance.now = real.performanceNow
      }
    },
    /**
     * Lets every pending continuation run, then runs the next timer (time moves to it).
     * False when no timer is left: nothing more can happen.
     */
    async step(): Promise<boolean> {
      await settle()
      const timer = takeNext()
      if (!timer) return false
      now = Math.max(now, timer.at)
      if (timer.everyMs !== undefined) {
        timer.at = now + timer.everyMs
        timer.seq = seq++
        timers.push(timer)
      } else byId.delete(timer.id)
      timer.run()
      await settle()
      return true
    },
    /** Timers waiting (live ones). */
    get pending() {
      return timers.filter((timer) => !timer.cleared && !(timer.owner && !timer.owner.alive)).length
    },
  }
}

export type VirtualTime = ReturnType<typeof createVirtualTime>
