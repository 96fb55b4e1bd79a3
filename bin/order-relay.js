#!/usr/bin/env node
// `npx order-relay …`, the package's bin: the CLI runs on Bun (bun:sqlite, Bun.serve),
// the `bun` npm package installed beside this one (src/launcher/runCli.ts). `init` runs
// here under Node: the folder it scaffolds has no bun until its `npm install`.
const argv = process.argv.slice(2)
if (argv[0] === 'init' && !argv.includes('--help') && !argv.includes('-h')) {
  const { runInit } = await import('../dist/lib/cli/lib/initProject.js')
  process.exitCode = runInit(argv.slice(1), { out: console.log, err: console.error })
} else {
  const { runCli } = await import('../dist/lib/launcher/index.js')
  process.exitCode = await runCli(argv)
}
