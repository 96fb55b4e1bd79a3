/**
 * Waits until `check` holds, asking every `everyMs`; past `ms` it throws naming
 * `what`, so a test fails with a message instead of running into its timeout.
 */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 20_000, everyMs = 20): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(everyMs)
  }
}
