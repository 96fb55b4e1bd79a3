import { toJsonSchema } from '@valibot/to-json-schema'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import * as v from 'valibot'
import type { Hex, PublicClient } from 'viem'
import type { McpConfig } from './config.ts'
import { errorLine } from '../shared/index.ts'
import { McpError } from './errors.ts'
import { readIsEncumbered } from './isEncumbered.ts'
import { IsEncumberedInputSchema, IsEncumberedOutputSchema } from './receipt.ts'

/** The JSON Schema of a valibot object schema, as MCP wants it (an object schema, no `$schema` key). */
function objectJsonSchema(schema: v.GenericSchema): { type: 'object'; [key: string]: unknown } {
  const { $schema: _dialect, ...json } = toJsonSchema(schema, { typeMode: 'input' }) as Record<string, unknown>
  return { ...json, type: 'object' }
}

/** The `is_encumbered` tool as `tools/list` shows it. */
export const isEncumberedTool: Tool = {
  name: 'is_encumbered',
  title: 'Is this lien encumbered?',
  description:
    'Reads isEncumbered(lienId) on the LienRegistry at one block (the latest unless blockNumber is given) and answers ' +
    '{encumbered, receipt}. The receipt (chain id, registry, block number and hash, the exact eth_call request and raw ' +
    'result) replays against any node: `order-relay verify-receipt FILE --rpc URL`. Encumbered means recorded, not ' +
    'released and not expired at that block.',
  inputSchema: objectJsonSchema(IsEncumberedInputSchema),
  outputSchema: objectJsonSchema(IsEncumberedOutputSchema),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
}

/** A tool error result: `isError: true` and one line `CODE: message`. */
export function toolError(code: string, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }] }
}

/** One line naming each bad argument; values are never echoed. */
function describeInputIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  const parts = new Set<string>()
  for (const issue of issues) {
    const key = issue.path?.[0]?.key
    const field = typeof key === 'string' ? key.slice(0, 40) : 'arguments'
    if (issue.type === 'strict_object' && issue.input !== undefined && key !== undefined) parts.add(`unexpected argument ${JSON.stringify(field)}: only lienId and blockNumber are accepted`)
    else if (issue.input === undefined && key !== undefined) parts.add(`${field} is required`)
    else if (key === undefined) parts.add('arguments must be an object {lienId, blockNumber?}')
    else parts.add(issue.message.includes('eceived') ? `${field} is invalid: expected ${issue.expected ?? 'a valid value'}` : issue.message)
  }
  return [...parts].join('; ')
}

/**
 * Runs `is_encumbered` for raw tool arguments: validates them, reads the chain and
 * answers the structured result plus the same JSON as text. Every failure is a
 * tool error result (never a throw), so one bad call cannot take the server down.
 */
export async function callIsEncumbered(args: unknown, deps: { config: McpConfig; client: PublicClient }): Promise<CallToolResult> {
  const parsed = v.safeParse(IsEncumberedInputSchema, args ?? {})
  if (!parsed.success) return toolError('INVALID_INPUT', describeInputIssues(parsed.issues))
  try {
    const output = await readIsEncumbered(deps.client, {
      ...deps.config,
      lienId: parsed.output.lienId.toLowerCase() as Hex,
      blockNumber: parsed.output.blockNumber === undefined ? undefined : BigInt(parsed.output.blockNumber),
    })
    return { structuredContent: output, content: [{ type: 'text', text: JSON.stringify(output, null, 2) }] }
  } catch (error) {
    if (error instanceof McpError) return toolError(error.code, error.message)
    return toolError('INTERNAL', errorLine(error))
  }
}
