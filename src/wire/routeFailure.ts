import * as v from 'valibot'
import { routeErrorCodeList } from './codes.ts'

/** The relayer's answer to a path it does not serve (404) or a method the path does not answer (405, with `Allow`). */
export const RouteFailureSchema = v.object({
  ok: v.literal(false),
  code: v.picklist(routeErrorCodeList),
  message: v.string(),
})

export type RouteFailure = v.InferOutput<typeof RouteFailureSchema>
