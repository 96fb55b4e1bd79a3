/** The labels of one `order_relay_relayer_http_requests_total` series. */
export type AnswerLabels = { route: string; status: string; code: string }

/**
 * HTTP answers counted by route, status and code with one map lookup each (the
 * label sets are few: bounded routes, statuses and codes), read at scrape time.
 */
export function createAnswerCounts() {
  const counts = new Map<string, { labels: AnswerLabels; count: number }>()
  return {
    add(route: string, status: number, code: string) {
      const key = `${route} ${status} ${code}`
      const entry = counts.get(key)
      if (entry) entry.count++
      else counts.set(key, { labels: { route, status: String(status), code }, count: 1 })
    },
    forEach(visit: (labels: AnswerLabels, count: number) => void) {
      for (const { labels, count } of counts.values()) visit(labels, count)
    },
  }
}
