import { toJsonSchemaDefs } from '@valibot/to-json-schema'
import {
  ActivityEventSchema,
  ActivitySnapshotSchema,
  AdapterReceiptSchema,
  BrokeredSchema,
  BrokerStatusSchema,
  EdgeRejectionSchema,
  OrderSchema,
  RelayerInfoSchema,
  RelayFailureSchema,
  RelayRequestSchema,
  RelaySuccessSchema,
  relayErrorCodes,
  SignatureSchema,
} from '../../wire/index.ts'

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: object) => ({ 'application/json': { schema } })

let cached: object | undefined

/**
 * The OpenAPI 3.1 document of the relayer, generated from the wire schemas (the
 * same objects that validate requests), never written by hand.
 */
export function openApiDocument(version: string): object {
  if (cached) return cached
  const schemas = toJsonSchemaDefs(
    {
      Order: OrderSchema,
      Signature: SignatureSchema,
      RelayRequest: RelayRequestSchema,
      Brokered: BrokeredSchema,
      AdapterReceipt: AdapterReceiptSchema,
      RelaySuccess: RelaySuccessSchema,
      RelayFailure: RelayFailureSchema,
      EdgeRejection: EdgeRejectionSchema,
      RelayerInfo: RelayerInfoSchema,
      BrokerStatus: BrokerStatusSchema,
      ActivityEvent: ActivityEventSchema,
      ActivitySnapshot: ActivitySnapshotSchema,
    },
    { typeMode: 'input', errorMode: 'ignore' },
  )
  // toJsonSchemaDefs emits `$defs` refs; OpenAPI components live under components/schemas.
  const text = JSON.stringify(schemas).replaceAll('#/$defs/', '#/components/schemas/')
  const failure = (codes: string[]) => ({
    description: codes.join(' or '),
    content: json(ref('RelayFailure')),
  })
  const byStatus = new Map<number, string[]>()
  for (const [code, { status }] of Object.entries(relayErrorCodes)) byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  const brokerFailures = Object.fromEntries([...byStatus].map(([status, codes]) => [String(status), failure(codes)]))

  cached = {
    openapi: '3.1.0',
    info: {
      title: 'order-relay relayer',
      version,
      description: 'Permissionless gas relayer: transmits a consumer-signed order as one transaction. No authentication.',
    },
    paths: {
      '/broker': {
        post: {
          operationId: 'broker',
          summary: 'Transmit a consumer-signed order',
          requestBody: { required: true, content: json(ref('RelayRequest')) },
          responses: {
            '200': { description: 'Settled: payment and grant landed atomically.', content: json(ref('RelaySuccess')) },
            ...brokerFailures,
            '429': {
              description: 'RATE_LIMITED or SERVER_BUSY (hardened edge only); see the Retry-After header.',
              headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait.' } },
              content: json(ref('EdgeRejection')),
            },
          },
        },
      },
      '/broker/{orderHash}': {
        get: {
          operationId: 'brokerStatus',
          summary: 'What this relayer knows about an order: pending, settled, reverted or unknown',
          parameters: [{ name: 'orderHash', in: 'path', required: true, description: 'The orderHash, 0x + 64 hex digits.', schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' } }],
          responses: {
            '200': { description: 'BrokerStatus', content: json(ref('BrokerStatus')) },
            '400': { description: 'MALFORMED_ORDER: the orderHash is not 0x + 64 hex digits.', content: json(ref('RelayFailure')) },
            '502': { description: "UPSTREAM_RPC: the Broker's logs could not be read.", content: json(ref('RelayFailure')) },
          },
        },
      },
      '/info': {
        get: {
          operationId: 'info',
          summary: "This relayer's fee floor, chains and gas address",
          responses: { '200': { description: 'RelayerInfo', content: json(ref('RelayerInfo')) } },
        },
      },
    },
    components: { schemas: JSON.parse(text) },
  }
  return cached
}
