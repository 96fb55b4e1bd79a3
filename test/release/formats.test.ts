// The header reader that proves a release artifact's format and CPU (scripts/release/formats.ts):
// the running executable, and headers laid out as the Mach-O and PE/COFF specifications say.
import { expect, test } from 'bun:test'
import { executableFormat, readHead } from '../../scripts/release/index.ts'

test('the running Bun is a 64-bit ELF for this machine', async () => {
  expect(executableFormat(await readHead(process.execPath))).toEqual({ format: 'ELF', arch: process.arch === 'arm64' ? 'arm64' : 'x86-64' })
})

function macho(cputype: number): Uint8Array {
  const head = new Uint8Array(64)
  const view = new DataView(head.buffer)
  view.setUint32(0, 0xfeedfacf, true)
  view.setUint32(4, cputype, true)
  return head
}

function pe(machine: number, optionalMagic: number): Uint8Array {
  const head = new Uint8Array(512)
  const view = new DataView(head.buffer)
  head.set([0x4d, 0x5a])
  view.setUint32(0x3c, 0x80, true)
  view.setUint32(0x80, 0x50450000, false)
  view.setUint16(0x84, machine, true)
  view.setUint16(0x80 + 24, optionalMagic, true)
  return head
}

test('Mach-O arm64 and x86-64, PE32+ x86-64 and arm64; PE32 (32-bit) and text are not executables here', () => {
  expect(executableFormat(macho(0x0100000c))).toEqual({ format: 'Mach-O', arch: 'arm64' })
  expect(executableFormat(macho(0x01000007))).toEqual({ format: 'Mach-O', arch: 'x86-64' })
  expect(executableFormat(macho(7))).toEqual({ format: 'Mach-O', arch: 'other (0x7)' })
  expect(executableFormat(pe(0x8664, 0x20b))).toEqual({ format: 'PE32+', arch: 'x86-64' })
  expect(executableFormat(pe(0xaa64, 0x20b))).toEqual({ format: 'PE32+', arch: 'arm64' })
  expect(executableFormat(pe(0x14c, 0x10b))).toBeUndefined()
  expect(executableFormat(new TextEncoder().encode('#!/bin/sh\n'.padEnd(100, '#')))).toBeUndefined()
  expect(executableFormat(new Uint8Array(10))).toBeUndefined()
})
