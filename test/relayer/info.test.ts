// GET /info (SPEC.md 2.7, 4.2) and GET /api/openapi.json: an OpenAPI 3.1 document
// generated from the wire schemas, accepted by a standard validator.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { relayErrorCodeList } from '../../src/wire/index.ts'
import { createExposure } from './support/exposure.ts'
import { accessLinePattern, startWatchedRelayer, type WatchedRelayer } from './support/watchedRelayer.ts'

let devnet: Devnet
let relayer: WatchedRelayer
let floored: WatchedRelayer
const exposure = createExposure()

beforeAll(async () => {
  devnet = await startDevnet()
  relayer = await startWatchedRelayer(devnet, exposure)
  floored = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_FEE_FLOOR_BPS: '25', RELAYER_PK: devnetAccounts.secondRelayer.privateKey } })
}, 60_000)
afterAll(async () => {
  await relayer?.stop()
  await floored?.stop()
  await devnet?.stop()
})

describe('GET /info', () => {
  test('the exact body: floor, chain, gas address (checksummed) first, then the pay tokens it values, the price of gas and where the gas key lives', async () => {
    const { status, text, headers } = await relayer.request('GET', '/info')
    expect(status).toBe(200)
    expect(headers.get('content-type')).toBe('application/json')
    const token = devnet.manifest.contracts.payToken
    expect(text).toMatch(
      new RegExp(
        `^\\{"feeFloorBps":0,"supportedChainIds":\\[421614\\],"relayer":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","acceptedTokens":\\[\\{"token":"${token}","symbol":"USDC","decimals":6,"nativePerToken":"0.01","source":"fixed","priced":true\\}\\],"acceptsUnpricedTokens":false,"minMarginBps":1000,"gasPriceWei":"[1-9]\\d*","signerKind":"private-key"\\}$`,
      ),
    )
    expect(devnetAccounts.relayer.address).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8')
  })

  test('RELAYER_FEE_FLOOR_BPS and the gas key show up as configured', async () => {
    const { status, json } = await floored.request('GET', '/info')
    expect(status).toBe(200)
    expect(json).toMatchObject({ feeFloorBps: 25, supportedChainIds: [421614], relayer: devnetAccounts.secondRelayer.address })
  })
})

describe('GET /api/openapi.json', () => {
  let document: Record<string, any>

  beforeAll(async () => {
    const { status, json, headers } = await relayer.request('GET', '/api/openapi.json')
    expect(status).toBe(200)
    expect(headers.get('content-type')).toBe('application/json')
    document = json as Record<string, any>
  })

  test('is OpenAPI 3.1 and a standard validator accepts it', async () => {
    expect(document.openapi).toBe('3.1.0')
    const validator = new Validator()
    const result = await validator.validate(document)
    expect(result).toEqual({ valid: true })
    expect(validator.version).toBe('3.1')
  })

  test('describes every route (itself too), every status it answers, and no authentication', () => {
    expect(Object.keys(document.paths).sort()).toEqual(['/', '/api/openapi.json', '/broker', '/broker/{orderHash}', '/health', '/info', '/ready', '/status'])
    const broker = document.paths['/broker'].post
    expect(Object.keys(broker.responses).sort()).toEqual(['200', '202', '400', '402', '404', '405', '422', '429', '431', '502', '503'])
    expect(broker.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RelayRequest' })
    expect(broker.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RelaySuccess' })
    expect(Object.keys(broker.responses['400'].content['application/json'].examples)).toEqual(['MALFORMED_ORDER', 'ORDERHASH_MISMATCH'])
    expect(Object.keys(broker.responses['422'].content['application/json'].examples)).toEqual(['WOULD_REVERT', 'AUTH_EXPIRED'])
    expect(broker.responses['429'].headers['Retry-After']).toBeDefined()
    expect(document.paths['/info'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RelayerInfo' })
    const status = document.paths['/broker/{orderHash}'].get
    expect(Object.keys(status.responses).sort()).toEqual(['200', '400', '404', '405', '429', '431', '502'])
    expect(status.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/BrokerStatus' })
    expect(Object.keys(document.components.schemas.BrokerStatus.properties).sort()).toEqual(['blockNumber', 'confirmations', 'final', 'orderHash', 'status', 'txHash'])
    expect(document.components.schemas.BrokerStatus.properties.status.enum).toEqual(['pending', 'settled', 'reverted', 'unknown'])
    expect(document.security).toEqual([])
    expect(document.components.securitySchemes).toBeUndefined()
  })

  test('the components are the wire schemas (SPEC.md section 2)', () => {
    const schemas = document.components.schemas
    const props = (name: string) => Object.keys(schemas[name].properties).sort()
    expect(props('Order')).toEqual(['adapter', 'amount', 'consumer', 'feeBps', 'nonce', 'params', 'payToken', 'payee'])
    expect(schemas.Order.additionalProperties).toBe(false)
    expect(schemas.Order.properties.feeBps).toMatchObject({ type: 'integer', minimum: 0, maximum: 65535 })
    expect(schemas.Order.properties.amount).toMatchObject({ type: 'string', pattern: '^(0|[1-9][0-9]*)$' })
    expect(props('RelayRequest')).toEqual(['chainId', 'order', 'orderHash', 'signature', 'validAfter', 'validBefore'])
    expect(schemas.RelayRequest.required.sort()).toEqual(['chainId', 'order', 'signature', 'validAfter', 'validBefore'])
    expect(props('RelaySuccess')).toEqual(['brokered', 'feeCollected', 'ok', 'orderHash', 'receipt', 'txHash'])
    expect(props('RelayFailure')).toEqual(['code', 'message', 'ok', 'revert'])
    expect(schemas.RelayFailure.required.sort()).toEqual(['code', 'message', 'ok'])
    expect(schemas.RelayFailure.properties.code.enum).toEqual(relayErrorCodeList)
    expect(schemas.EdgeRejection.properties.code.enum).toEqual(['RATE_LIMITED', 'SERVER_BUSY', 'INSUFFICIENT_RELAYER_GAS'])
    expect(props('RelayerInfo')).toEqual(['acceptedTokens', 'acceptsUnpricedTokens', 'feeFloorBps', 'gasPriceWei', 'minMarginBps', 'relayer', 'signerKind', 'supportedChainIds'])
    // SPEC.md 2.7's three fields are the required ones; the rest are this relayer's additions.
    expect(schemas.RelayerInfo.required.sort()).toEqual(['feeFloorBps', 'relayer', 'supportedChainIds'])
    expect(props('Brokered')).toEqual(['adapter', 'amount', 'consumer', 'orderHash'])
  })
})

test('GET /health: liveness, the text ok, from any origin', async () => {
  const { status, text, headers } = await relayer.request('GET', '/health', { headers: { origin: 'https://dapp.example' } })
  expect({ status, text, type: headers.get('content-type'), origin: headers.get('access-control-allow-origin') }).toEqual({ status: 200, text: 'ok', type: 'text/plain; charset=UTF-8', origin: '*' })
})

test('unknown paths: 404 NOT_FOUND, JSON; a method a route does not answer: 405 METHOD_NOT_ALLOWED with Allow', async () => {
  const missing = await relayer.request('GET', '/nope')
  expect({ status: missing.status, body: JSON.parse(missing.text) }).toEqual({
    status: 404,
    body: { ok: false, code: 'NOT_FOUND', message: 'no such route: GET /api/openapi.json lists the routes this relayer serves' },
  })
  const wrong = await relayer.request('PUT', '/info')
  expect({ status: wrong.status, allow: wrong.headers.get('allow'), body: JSON.parse(wrong.text) }).toEqual({
    status: 405,
    allow: 'GET, HEAD, OPTIONS',
    body: { ok: false, code: 'METHOD_NOT_ALLOWED', message: 'this route answers GET, HEAD, OPTIONS only (the Allow header lists them)' },
  })
})

test('no key in any log line or body; one access line per request', () => {
  expect(exposure.leaks()).toEqual([])
  for (const each of [relayer, floored]) {
    const log = each.accessLog()
    expect(log.access).toEqual(log.expected)
    for (const line of log.access) expect(line).toMatch(accessLinePattern)
  }
})
