import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

/** Lowest port handed out: above the well-known and most registered services' ports. */
const lowest = 20_000

/**
 * The first port the kernel hands to outgoing connections (Linux: ip_local_port_range;
 * 32768 where it cannot be read, Linux's default and below macOS's 49152). Ports are
 * drawn below it: a port checked free there cannot be taken by an outgoing connection
 * (of this process or another) before the server that asked for it listens on it, as a
 * port the kernel chose with `listen(0)` can.
 */
function firstEphemeralPort(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    return Number.isInteger(first) && first > lowest + 1_000 ? first : 32_768
  } catch {
    return 32_768
  }
}

/** True when nothing listens on 127.0.0.1:port. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.unref()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/** Ports this process has handed out, never handed out twice: two asks in a row get two ports. */
const handedOut = new Set<number>()

/**
 * The first of `count` consecutive TCP ports on 127.0.0.1 that were free a moment ago,
 * below the kernel's ephemeral range (see `firstEphemeralPort`).
 * @throws when 50 random draws found no such range
 */
export async function freePortRange(count: number): Promise<number> {
  const span = firstEphemeralPort() - lowest - count
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = lowest + Math.floor(Math.random() * span)
    const ports = Array.from({ length: count }, (_, i) => base + i)
    if (ports.some((port) => handedOut.has(port))) continue
    // Taken before the check, so that asks made together never draw the same port.
    for (const port of ports) handedOut.add(port)
    if ((await Promise.all(ports.map(isFree))).every(Boolean)) return base
    for (const port of ports) handedOut.delete(port)
  }
  throw new Error(`no ${count} free consecutive ports found between ${lowest} and the ephemeral range`)
}

/** A TCP port on 127.0.0.1 that was free a moment ago, below the kernel's ephemeral range. */
export function freePort(): Promise<number> {
  return freePortRange(1)
}
