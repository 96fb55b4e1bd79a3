#!/usr/bin/env bash
# The interfaces the package ships (contracts/src/interfaces/*.sol) declare a range of
# compilers, so a contract developer's project on any of them can import IAdapter. This
# compiles them with the oldest and the newest solc-js of that range, each installed from
# the npm registry into a throw-away folder, and fails on any error or warning.
#
#   bash scripts/ci/interfaces-solc-range.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

interfaces=(contracts/src/interfaces/*.sol)
# Every interface declares the same range: `pragma solidity ^0.8.0;` gives ^0.8.0.
ranges=$(sed -nE 's/^pragma solidity (.*);$/\1/p' "${interfaces[@]}" | sort -u)
if [ "$(wc -l <<<"$ranges")" -ne 1 ]; then
  echo "interfaces-solc-range: the interfaces declare different ranges: $(tr '\n' ' ' <<<"$ranges")" >&2
  exit 1
fi
range=$ranges
# The oldest version a ^x.y.z / >=x.y.z range admits is its lower bound; the newest, what npm resolves it to.
oldest=$(grep -oE '[0-9]+\.[0-9]+\.[0-9]+' <<<"$range" | head -1)
newest=$(npm view "solc@$range" version --json | node -e '
// npm lists the matching versions in no particular order: the highest by number.
const versions = [JSON.parse(require("fs").readFileSync(0, "utf8"))].flat()
const key = (v) => v.split(".").map(Number)
versions.sort((a, b) => { const [x, y] = [key(a), key(b)]; return x[0] - y[0] || x[1] - y[1] || x[2] - y[2] })
console.log(versions.at(-1))')

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

status=0
for version in "$oldest" "$newest"; do
  npm install --silent --no-audit --no-fund --no-save --prefix "$tmp/$version" "solc@$version" >/dev/null
  if node - "$tmp/$version" "${interfaces[@]}" <<'JS'; then echo "ok: solc-js $version ($range) compiles ${#interfaces[@]} interfaces"; else status=1; fi
const { createRequire } = require('node:module')
const { readFileSync } = require('node:fs')
const { join } = require('node:path')
const [prefix, ...files] = process.argv.slice(2)
const solc = createRequire(join(prefix, 'node_modules', 'noop.js'))('solc')
const input = {
  language: 'Solidity',
  sources: Object.fromEntries(files.map((file) => [file, { content: readFileSync(file, 'utf8') }])),
  settings: { outputSelection: { '*': { '*': ['abi'] } } },
}
const output = JSON.parse(solc.compile(JSON.stringify(input)))
const problems = output.errors ?? []
for (const problem of problems) console.error(problem.formattedMessage ?? problem.message)
const abis = Object.values(output.contracts ?? {}).flatMap((contracts) => Object.keys(contracts))
if (problems.length > 0 || abis.length < files.length) {
  console.error(`solc-js ${solc.version()}: ${problems.length} errors or warnings, ${abis.length} contracts compiled`)
  process.exit(1)
}
JS
done
exit "$status"
