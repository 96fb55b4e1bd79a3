// Preloaded by bunfig.toml before every test file. Each file starts its own devnet
// (anvil via prool) in beforeAll and stops it in afterAll, so files never share
// chain state and can run in any order.
process.env.FOUNDRY_DISABLE_NIGHTLY_WARNING = 'true'
