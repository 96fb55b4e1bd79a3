/**
 * Waits until `check` holds, asking every `everyMs`; past `ms` it throws naming
 * `what`, so a test fails with a message instead of running into its timeout.
 */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 30_000, everyMs = 20): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await Bun.sleep(everyMs)
  }
}
