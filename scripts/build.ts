// Compiles the CLI into one executable, dist/order-relay. The contract artifacts are
// TypeScript modules (src/chain/generated), so they are embedded; at run time the
// binary needs no node_modules (only `devnet` needs an anvil executable).
import { $ } from 'bun'

await $`bun scripts/build-contracts.ts`
const started = performance.now()
await $`bun build --compile --minify --sourcemap src/cli/main.ts --outfile dist/order-relay`
const { size } = Bun.file('dist/order-relay')
console.log(`built dist/order-relay (${(size / 1e6).toFixed(1)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`)
