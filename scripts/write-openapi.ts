// Writes the services' OpenAPI documents to files, for `redocly lint` and
// `prism proxy` in .ci/run and the tests: `bun scripts/write-openapi.ts [dir]`
// (default dist/openapi) → relayer.openapi.json and indexer.openapi.json, both at the
// package's version. Prints the paths written.
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { indexerOpenApiDocument } from '../src/indexer/index.ts'
import { openApiDocument } from '../src/relayer/http/openapi.ts'

const dir = Bun.argv[2] ?? 'dist/openapi'
const version = (await Bun.file(new URL('../package.json', import.meta.url)).json()).version as string
await mkdir(dir, { recursive: true })

const documents: Record<string, object> = { relayer: openApiDocument(version), indexer: indexerOpenApiDocument(version) }

for (const [name, document] of Object.entries(documents)) {
  const path = join(dir, `${name}.openapi.json`)
  await Bun.write(path, `${JSON.stringify(document, null, 2)}\n`)
  console.log(path)
}
