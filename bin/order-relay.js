#!/usr/bin/env node
// `npx order-relay …`, the package's bin: the CLI runs on Bun (bun:sqlite, Bun.serve),
// the `bun` npm package installed beside this one (src/launcher/runCli.ts).
import { runCli } from '../dist/lib/launcher/index.js'

process.exitCode = await runCli(process.argv.slice(2))
