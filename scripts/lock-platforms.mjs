#!/usr/bin/env node
// The npm registry this project is built against serves only some of the per-platform
// packages that @foundry-rs/anvil and @foundry-rs/forge list as optional dependencies.
// `npm install` then leaves those out of package-lock.json and `npm ci` refuses the
// lock ("Missing: @foundry-rs/anvil-darwin-amd64@ from lock file"). This adds the
// missing entries with their os/cpu, as a lock made against the full registry has
// them: npm ci skips them on other platforms without fetching anything, and fetches
// them by version where they match. Run it after `npm install` changes the lock.
import { readFileSync, writeFileSync } from 'node:fs'

const platform = { 'darwin-amd64': ['darwin', 'x64'], 'darwin-arm64': ['darwin', 'arm64'], 'linux-amd64': ['linux', 'x64'], 'linux-arm64': ['linux', 'arm64'], 'win32-amd64': ['win32', 'x64'] }
const path = new URL('../package-lock.json', import.meta.url)
const lock = JSON.parse(readFileSync(path, 'utf8'))
let added = 0
for (const [key, entry] of Object.entries(lock.packages)) {
  if (!/^node_modules\/@foundry-rs\/(anvil|forge|cast)$/.test(key)) continue
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const target = `node_modules/${name}`
    if (lock.packages[target]) continue
    const suffix = name.split('-').slice(-2).join('-')
    const [os, cpu] = platform[suffix] ?? []
    if (!os) continue
    lock.packages[target] = { version, ...(entry.dev ? { dev: true } : {}), license: entry.license, optional: true, os: [os], cpu: [cpu] }
    added++
  }
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))))
lock.packages = sorted
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`lock-platforms: added ${added} per-platform entries`)
