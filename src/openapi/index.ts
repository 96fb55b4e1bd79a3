// Helpers for the services' OpenAPI 3.1 documents (relayer and indexer): the wire
// schemas as JSON Schema 2020-12 components, the shared head (info, license,
// servers, security) and the responses every service shares.
export { type JsonSchemaObject, schemaComponents, schemaRef } from './components.ts'
export {
  type DocumentHeadParameters,
  documentHead,
  headersTooLargeResponse,
  jsonContent,
  jsonExamples,
  type NamedExample,
  notFoundResponse,
  openApiPathItem,
  preflightOperation,
  type ResponseObject,
  retryAfterHeader,
} from './responses.ts'
