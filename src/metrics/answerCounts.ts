/** The labels of one `order_relay_relayer_http_requests_total` series. */
export type AnswerLabels = { route: string; status: string; code: string }

type Entry = { labels: AnswerLabels; count: number }

/**
 * HTTP answers counted by route, status and code, read at scrape time. The label sets
 * are few (bounded routes, statuses and codes); each is found through three small
 * maps rather than a key string built per request, so counting allocates nothing.
 */
export function createAnswerCounts() {
  const counts = new Map<string, Map<number, Map<string, Entry>>>()
  return {
    add(route: string, status: number, code: string) {
      let byStatus = counts.get(route)
      if (!byStatus) counts.set(route, (byStatus = new Map()))
      let byCode = byStatus.get(status)
      if (!byCode) byStatus.set(status, (byCode = new Map()))
      const entry = byCode.get(code)
      if (entry) entry.count++
      else byCode.set(code, { labels: { route, status: String(status), code }, count: 1 })
    },
    forEach(visit: (labels: AnswerLabels, count: number) => void) {
      for (const byStatus of counts.values()) for (const byCode of byStatus.values()) for (const { labels, count } of byCode.values()) visit(labels, count)
    },
  }
}
