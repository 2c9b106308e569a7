/**
 * Regenerates docs/openapi.json from the route table (`npm run openapi`). A unit test fails when
 * the committed document is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderOpenApiDocument } from './openapi.js';

export const OPENAPI_DOCUMENT_PATH = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(OPENAPI_DOCUMENT_PATH, renderOpenApiDocument());
  process.stdout.write(`wrote ${OPENAPI_DOCUMENT_PATH}\n`);
}
