import { bytesToHex, hexToBytes } from 'viem'

/** Bytes of a keystore's hex field, with or without 0x (geth writes it without). */
export const fieldBytes = (hex: string): Uint8Array => hexToBytes(hex.startsWith('0x') ? (hex as `0x${string}`) : `0x${hex}`)

/** A keystore's hex field as geth writes it: lower case, no 0x. */
export const fieldHex = (bytes: Uint8Array): string => bytesToHex(bytes).slice(2)
