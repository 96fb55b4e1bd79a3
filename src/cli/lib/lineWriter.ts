/**
 * Lines gathered and written with one call per turn of the event loop (or once
 * `maxBuffered` characters are waiting). A relayer under load prints an access line
 * per request; one `write` per line cost 12 µs of a 51 µs rejection in the benchmark.
 *
 * @example
 * const out = createLineWriter((text) => process.stdout.write(text))
 * out.line('POST /broker 400 MALFORMED_ORDER')
 * out.flush() // before exiting
 */
export function createLineWriter(write: (text: string) => void, options: { maxBuffered?: number } = {}) {
  const maxBuffered = options.maxBuffered ?? 64 * 1024
  let buffer = ''
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (!buffer) return
    const text = buffer
    buffer = ''
    write(text)
  }
  return {
    line(text: string) {
      buffer += `${text}\n`
      if (buffer.length >= maxBuffered) flush()
      else if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    },
    /** Writes whatever is waiting, now. */
    flush,
  }
}
