import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.vitest.test.ts'],
    // A devnet deploys every contract before the first test: give it time.
    hookTimeout: 180_000,
    testTimeout: 60_000,
  },
})
