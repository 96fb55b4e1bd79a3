// GET /activity's query parameters: parsing, cursors and page selection over the retained events.
export { decodeCursor, encodeCursor, type Position } from './cursor.ts'
export { parseQuery, type QueryProblem } from './parseQuery.ts'
export { type PageQuery, selectPage } from './selectPage.ts'
