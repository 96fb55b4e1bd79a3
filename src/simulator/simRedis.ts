import { lauxlib, lua, type LuaState, lualib } from 'fengari'
import type { RedisConnection } from '../relayer/replicas/index.ts'
import type { Random } from './random.ts'

// Lua strings are bytes: the platform's UTF-8 codecs convert them (fengari's own are a fifth of a script's time).
const encoder = new TextEncoder()
const decoder = new TextDecoder()
const luaString = (text: string) => encoder.encode(text)
const jsString = (L: LuaState, index: number) => decoder.decode(lua.lua_tolstring(L, index) ?? new Uint8Array())

/** Where the simulated Redis's clock starts (ms): about 11.6 days, so a run's times stay under 2^31. */
const redisEpochMs = 1_000_000_000

/** A reply as Redis gives one: a bulk string, an integer, null, a status, or an array of them. */
type Reply = string | number | null | { status: string } | Reply[]

type Entry = { value: string | Map<string, string>; expiresAt?: number }

/** The faults the simulated Redis shows while they are switched on (the world's schedule switches them). */
export type RedisFaults = {
  /** Every command fails (connection refused): a Redis that is down. */
  down: boolean
  /** Every answer comes this many ms late (the command still runs): over 1 s, the relayer counts it as failed. */
  slowMs: number
  /** The clients (by the index their connection was made with) cut off from Redis: their commands fail, the others' run (a network partition). */
  cutOff: Set<number>
}

/**
 * A simulated Redis on the simulator's clock, for relayer replicas (src/relayer/replicas):
 * strings and hashes with millisecond expiry, and `EVAL` running the relayer's own Lua
 * scripts in a Lua VM (fengari), so the claims, their epoch fence, the outcomes and the
 * heartbeat run unchanged. It answers the commands those scripts and the replicas use
 * (GET, SET NX PX, DEL, EXISTS, PEXPIRE, HSET, HMGET, TIME, INFO, PING, EVAL), and
 * shows Redis's faults: down, slow, restarted empty (a new run id, as `INFO server`
 * says). Each script runs whole at once, as in Redis.
 *
 * @example
 * const redis = createSimRedis({ now: time.now, random })
 * const connection = redis.connection(() => random.between(1, 5))
 * await connection.send('SET', ['a', '1'])
 */
export function createSimRedis(options: { now: () => number; random: Random }) {
  const { now, random } = options
  const faults: RedisFaults = { down: false, slowMs: 0, cutOff: new Set() }
  // Redis's own clock (TIME), on its own host's epoch: the scripts' milliseconds stay within
  // fengari's 32-bit integers (Redis's Lua has doubles), and the relayer compares Redis's
  // times only with each other.
  const startedAt = now()
  const clock = () => redisEpochMs + now() - startedAt
  let data = new Map<string, Entry>()
  let runId = newRunId()
  let restarts = 0
  const L = lauxlib.luaL_newstate()
  lualib.luaL_openlibs(L)
  const scripts = new Map<string, number>()
  installRedisTable(L, (args) => run(args))

  function newRunId(): string {
    let id = ''
    while (id.length < 40) id += random.int(16).toString(16)
    return id
  }

  /** The entry under `key`, unless it expired (then it is gone). */
  function entry(key: string): Entry | undefined {
    const found = data.get(key)
    if (found?.expiresAt !== undefined && found.expiresAt <= now()) {
      data.delete(key)
      return undefined
    }
    return found
  }

  const stringAt = (key: string): string | null => {
    const found = entry(key)
    if (found && typeof found.value !== 'string') throw new Error('WRONGTYPE Operation against a key holding the wrong kind of value')
    return (found?.value as string | undefined) ?? null
  }

  /** One command, run at once. */
  function run(args: string[]): Reply {
    const [name = '', ...rest] = args
    switch (name.toUpperCase()) {
      case 'PING':
        return { status: 'PONG' }
      case 'GET':
        return stringAt(rest[0]!)
      case 'SET': {
        const [key, value, ...flags] = rest as [string, string, ...string[]]
        const upper = flags.map((flag) => flag.toUpperCase())
        if (upper.includes('NX') && entry(key)) return null
        const px = upper.indexOf('PX')
        data.set(key, px >= 0 ? { value, expiresAt: now() + Number(flags[px + 1]) } : { value })
        return { status: 'OK' }
      }
      case 'DEL':
        return rest.filter((key) => entry(key) !== undefined && data.delete(key)).length
      case 'EXISTS':
        return rest.filter((key) => entry(key) !== undefined).length
      case 'PEXPIRE': {
        const found = entry(rest[0]!)
        if (!found) return 0
        found.expiresAt = now() + Number(rest[1])
        return 1
      }
      case 'HSET': {
        const [key, ...pairs] = rest as [string, ...string[]]
        const found = entry(key)
        const hash = found && found.value instanceof Map ? found.value : new Map<string, string>()
        if (!found || !(found.value instanceof Map)) data.set(key, { value: hash })
        let added = 0
        for (let i = 0; i + 1 < pairs.length; i += 2) {
          if (!hash.has(pairs[i]!)) added++
          hash.set(pairs[i]!, pairs[i + 1]!)
        }
        return added
      }
      case 'HMGET': {
        const [key, ...fields] = rest as [string, ...string[]]
        const found = entry(key)
        return fields.map((field) => (found?.value instanceof Map ? (found.value.get(field) ?? null) : null))
      }
      case 'TIME': {
        const ms = clock()
        return [String(Math.floor(ms / 1_000)), String((ms % 1_000) * 1_000)]
      }
      case 'INFO':
        return `# Server\r\nrun_id:${runId}\r\n# Memory\r\nmaxmemory_policy:noeviction\r\n# Persistence\r\naof_enabled:1\r\n`
      case 'EVAL': {
        const [script, keyCount, ...more] = rest as [string, string, ...string[]]
        const count = Number(keyCount)
        return evaluate(script, more.slice(0, count), more.slice(count))
      }
      default:
        throw new Error(`ERR unknown command '${name}' in the simulated Redis`)
    }
  }

  /** Runs a script (compiled once, as Redis caches it) with its KEYS and ARGV. */
  function evaluate(script: string, keys: string[], argv: string[]): Reply {
    let ref = scripts.get(script)
    if (ref === undefined) {
      if (lauxlib.luaL_loadstring(L, luaString(script)) !== lua.LUA_OK) throw new Error(`ERR Error compiling script: ${jsString(L, -1)}`)
      ref = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX)
      scripts.set(script, ref)
    }
    setGlobalArray(L, 'KEYS', keys)
    setGlobalArray(L, 'ARGV', argv)
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, ref)
    try {
      if (lua.lua_pcall(L, 0, 1, 0) !== lua.LUA_OK) throw new Error(`ERR Error running script: ${jsString(L, -1)}`)
      return toReply(L, -1)
    } finally {
      lua.lua_settop(L, 0)
    }
  }

  return {
    faults,
    /** Redis restarts empty: every key gone, a new run id (the replicas' epoch script sees it). */
    restart() {
      data = new Map()
      runId = newRunId()
      restarts++
    },
    get restarts() {
      return restarts
    },
    /** What is stored under `key` now (the invariants read the outcomes). */
    read: (key: string) => stringAt(key),
    /**
     * A connection of one client (`client`: its index, for a partition that cuts it off):
     * each command reaches Redis after `latencyMs()` and its answer comes back after as long
     * again (plus `slowMs` while Redis is slow); while down, or while this client is cut
     * off, a command fails after the first leg.
     */
    connection(latencyMs: () => number, client = 0): RedisConnection {
      const send = (args: string[]) =>
        new Promise<unknown>((resolve, reject) => {
          setTimeout(() => {
            if (faults.down || faults.cutOff.has(client)) return reject(Object.assign(new Error('Connection closed'), { code: 'ERR_REDIS_CONNECTION_CLOSED' }))
            let reply: Reply | undefined
            let failure: unknown
            try {
              reply = run(args)
            } catch (error) {
              failure = error
            }
            setTimeout(() => (failure === undefined ? resolve(toClientValue(reply!)) : reject(failure)), latencyMs() + faults.slowMs)
          }, latencyMs())
        })
      return {
        send: (command, args) => send([command, ...args]),
        get: async (key) => (await send(['GET', key])) as string | null,
        connect: async () => {},
        close() {},
      }
    },
  }
}

export type SimRedis = ReturnType<typeof createSimRedis>

/** What Bun's client hands back for a reply: a status as its text. */
function toClientValue(reply: Reply): unknown {
  if (Array.isArray(reply)) return reply.map(toClientValue)
  if (reply !== null && typeof reply === 'object') return reply.status
  return reply
}

/** The `redis` table scripts call: `redis.call` runs a command (a failure raises a Lua error), `redis.pcall` too. */
function installRedisTable(L: LuaState, run: (args: string[]) => Reply) {
  const call = (state: LuaState) => {
    const args: string[] = []
    for (let i = 1; i <= lua.lua_gettop(state); i++) args.push(jsString(state, i))
    let reply: Reply
    try {
      reply = run(args)
    } catch (error) {
      lua.lua_pushstring(state, luaString((error as Error).message))
      return lua.lua_error(state)
    }
    pushReply(state, reply)
    return 1
  }
  lua.lua_createtable(L, 0, 2)
  lua.lua_pushjsfunction(L, call)
  lua.lua_setfield(L, -2, luaString('call'))
  lua.lua_pushjsfunction(L, call)
  lua.lua_setfield(L, -2, luaString('pcall'))
  lua.lua_setglobal(L, luaString('redis'))
}

function setGlobalArray(L: LuaState, name: string, values: string[]) {
  lua.lua_createtable(L, values.length, 0)
  values.forEach((value, i) => {
    lua.lua_pushstring(L, luaString(value))
    lua.lua_rawseti(L, -2, i + 1)
  })
  lua.lua_setglobal(L, luaString(name))
}

/** A reply as a script sees it (Redis's conversion): null is false, a status a table with `ok`. */
function pushReply(L: LuaState, reply: Reply) {
  if (reply === null) return lua.lua_pushboolean(L, false)
  if (typeof reply === 'number') return lua.lua_pushinteger(L, reply)
  if (typeof reply === 'string') return lua.lua_pushstring(L, luaString(reply))
  if (Array.isArray(reply)) {
    lua.lua_createtable(L, reply.length, 0)
    reply.forEach((item, i) => {
      pushReply(L, item)
      lua.lua_rawseti(L, -2, i + 1)
    })
    return
  }
  lua.lua_createtable(L, 0, 1)
  lua.lua_pushstring(L, luaString(reply.status))
  lua.lua_setfield(L, -2, luaString('ok'))
}

/** A script's value as its reply (Redis's conversion): a number truncated to an integer, false null, an array up to its first nil. */
function toReply(L: LuaState, index: number): Reply {
  const at = index < 0 ? lua.lua_gettop(L) + index + 1 : index
  const type = lua.lua_type(L, at)
  if (type === lua.LUA_TNUMBER) return Math.trunc(lua.lua_tonumber(L, at))
  if (type === lua.LUA_TSTRING) return jsString(L, at)
  if (type === lua.LUA_TBOOLEAN) return lua.lua_toboolean(L, at) ? 1 : null
  if (type !== lua.LUA_TTABLE) return null
  if (lua.lua_getfield(L, at, luaString('ok')) === lua.LUA_TSTRING) {
    const status = jsString(L, -1)
    lua.lua_settop(L, at)
    return { status }
  }
  lua.lua_settop(L, at)
  if (lua.lua_getfield(L, at, luaString('err')) === lua.LUA_TSTRING) {
    const message = jsString(L, -1)
    lua.lua_settop(L, at)
    throw new Error(message)
  }
  lua.lua_settop(L, at)
  const items: Reply[] = []
  for (let i = 1; ; i++) {
    if (lua.lua_rawgeti(L, at, i) === lua.LUA_TNIL) break
    items.push(toReply(L, -1))
    lua.lua_settop(L, at)
  }
  lua.lua_settop(L, at)
  return items
}
