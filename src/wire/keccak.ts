import { createKeccak, type IHasher } from 'hash-wasm'
import { type Hex, keccak256 as jsKeccak256 } from 'viem'
import { bytesToHex } from './hexBytes.ts'

let wasm: IHasher | undefined

/**
 * Settles once the WebAssembly Keccak is loaded (it never rejects: without
 * WebAssembly the JavaScript one stays in use). Awaiting it is optional.
 */
export const keccakReady: Promise<void> = createKeccak(256).then(
  (hasher) => {
    wasm = hasher
  },
  () => {},
)

/** The bytes of well-formed hex, decoded natively (Buffer stops at a non-hex digit, hence the length check); else undefined. */
function bytesOf(data: Hex): Uint8Array | undefined {
  if (typeof Buffer === 'undefined' || !data.startsWith('0x')) return undefined
  const digits = data.length % 2 ? `0${data.slice(2)}` : data.slice(2)
  const bytes = Buffer.from(digits, 'hex')
  return bytes.length * 2 === digits.length ? bytes : undefined
}

/**
 * keccak-256 of hex data, the same digest as viem's `keccak256`. Under Bun, viem's
 * (noble's) JavaScript Keccak takes ~40 µs for an encoded Order; hash-wasm's
 * WebAssembly one takes ~5 µs, and the relayer hashes every request before its fee
 * floor check. Until the WebAssembly module has loaded (the first moment after
 * start), the JavaScript one answers.
 */
export function keccak256(data: Hex): Hex {
  const bytes = wasm && bytesOf(data)
  // Anything unusual (and the moments before the module loads) is viem's, so the result never differs.
  if (!wasm || !bytes) return jsKeccak256(data)
  wasm.init()
  wasm.update(bytes)
  return `0x${wasm.digest('hex')}`
}

/** keccak-256 of bytes, the same digest as viem's `keccak256`; WebAssembly once loaded. */
export function keccak256Bytes(bytes: Uint8Array): Hex {
  if (!wasm) return jsKeccak256(bytes)
  wasm.init()
  wasm.update(bytes)
  return bytesToHex(wasm.digest('binary'))
}

/** keccak-256 of a string's UTF-8 bytes as 64 hex digits, no `0x`; undefined until the WebAssembly Keccak has loaded. */
export function keccakTextHex(text: string): string | undefined {
  if (!wasm) return undefined
  wasm.init()
  wasm.update(text)
  return wasm.digest('hex')
}
