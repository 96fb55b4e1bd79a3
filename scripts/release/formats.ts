// Reads an executable's header: its container format and the CPU it is built for, so a
// release can prove the darwin and windows artifacts are what their names say without
// running them.
import { open } from 'node:fs/promises'

export type ExecutableFormat = { format: 'ELF' | 'Mach-O' | 'PE32+'; arch: 'x86-64' | 'arm64' | `other (${string})` }

// ELF e_machine, Mach-O cputype (CPU_ARCH_ABI64 | CPU_TYPE_*), PE/COFF Machine.
const elfMachines: Record<number, ExecutableFormat['arch']> = { 0x3e: 'x86-64', 0xb7: 'arm64' }
const machoCpus: Record<number, ExecutableFormat['arch']> = { 0x01000007: 'x86-64', 0x0100000c: 'arm64' }
const peMachines: Record<number, ExecutableFormat['arch']> = { 0x8664: 'x86-64', 0xaa64: 'arm64' }
const other = (value: number): ExecutableFormat['arch'] => `other (0x${value.toString(16)})`

/**
 * The format and architecture in an executable's first bytes (at least its first 4 KiB):
 * 64-bit little-endian ELF, 64-bit Mach-O or PE32+; undefined for anything else.
 *
 * @example
 * executableFormat(await readHead('order-relay-0.1.0-darwin-arm64')) // { format: 'Mach-O', arch: 'arm64' }
 */
export function executableFormat(head: Uint8Array): ExecutableFormat | undefined {
  if (head.length < 64) return undefined
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength)
  // ELF: 7f 'E' 'L' 'F', class 2 (64-bit), data 1 (little-endian), e_machine at 18.
  if (view.getUint32(0, false) === 0x7f454c46 && head[4] === 2 && head[5] === 1) {
    const machine = view.getUint16(18, true)
    return { format: 'ELF', arch: elfMachines[machine] ?? other(machine) }
  }
  // Mach-O 64-bit little-endian: magic 0xfeedfacf, cputype at 4.
  if (view.getUint32(0, true) === 0xfeedfacf) {
    const cpu = view.getUint32(4, true)
    return { format: 'Mach-O', arch: machoCpus[cpu] ?? other(cpu) }
  }
  // PE: 'MZ', the PE header's offset at 0x3c, 'PE\0\0', Machine right after, and the
  // optional header's magic 0x20b (PE32+) 20 bytes after the Machine field's start.
  if (head[0] === 0x4d && head[1] === 0x5a) {
    const pe = view.getUint32(0x3c, true)
    if (pe + 26 > head.length || view.getUint32(pe, false) !== 0x50450000) return undefined
    if (view.getUint16(pe + 24, true) !== 0x20b) return undefined
    const machine = view.getUint16(pe + 4, true)
    return { format: 'PE32+', arch: peMachines[machine] ?? other(machine) }
  }
  return undefined
}

/**
 * The first `bytes` bytes of a file.
 *
 * @example
 * const head = await readHead('/bin/sh')
 */
export async function readHead(path: string, bytes = 4096): Promise<Uint8Array> {
  const file = await open(path, 'r')
  try {
    const buffer = new Uint8Array(bytes)
    const { bytesRead } = await file.read(buffer, 0, bytes, 0)
    return buffer.subarray(0, bytesRead)
  } finally {
    await file.close()
  }
}

/** The format and architecture each artifact must have, by target name. */
export const expectedFormats: Record<string, ExecutableFormat> = {
  'linux-x64': { format: 'ELF', arch: 'x86-64' },
  'linux-arm64': { format: 'ELF', arch: 'arm64' },
  'darwin-x64': { format: 'Mach-O', arch: 'x86-64' },
  'darwin-arm64': { format: 'Mach-O', arch: 'arm64' },
  'windows-x64': { format: 'PE32+', arch: 'x86-64' },
}
