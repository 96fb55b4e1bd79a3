import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

/** Debian's Chromium (`.ci/run` installs it with apt-get); the browser tests skip without it. */
export const chromiumPath = '/usr/bin/chromium'
export const hasChromium = existsSync(chromiumPath)

/** A headless Chromium for a test, without the sandbox (CI runs as root) and without the background traffic that would reach out of the machine. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}
