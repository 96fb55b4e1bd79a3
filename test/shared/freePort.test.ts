// Ports for the servers tests and the devnet start: drawn below the kernel's ephemeral
// range, so that no outgoing connection can take one between the check and the listen,
// and never handed out twice by one process.
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { freePort, freePortRange } from '../../src/shared/index.ts'

const firstEphemeral = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
  } catch {
    return 32_768
  }
})()

test('each port is below the ephemeral range, free, and never handed out twice', async () => {
  const ports = await Promise.all(Array.from({ length: 200 }, () => freePort()))
  expect(new Set(ports).size).toBe(ports.length)
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(20_000)
    expect(port).toBeLessThan(firstEphemeral)
  }
  // Free: a server listens on the first one.
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(ports[0], '127.0.0.1', resolve)
  })
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

test('a range is consecutive ports, none of them taken, none handed out again', async () => {
  const taken = createServer()
  const base = await freePortRange(3)
  await new Promise<void>((resolve) => taken.listen(base + 1, '127.0.0.1', resolve))
  try {
    const others = await Promise.all(Array.from({ length: 50 }, () => freePortRange(3)))
    for (const other of others) expect(Math.abs(other - base)).toBeGreaterThanOrEqual(3)
    expect(base + 2).toBeLessThan(firstEphemeral)
  } finally {
    await new Promise<void>((resolve) => taken.close(() => resolve()))
  }
})
