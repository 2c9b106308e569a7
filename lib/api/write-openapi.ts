/**
 * Regenerates docs/openapi.json from the route table, and the id rules in docs/api.md from it
 * (`npm run openapi`). Unit tests fail when either committed file is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderOpenApiDocument, withIdRules } from './openapi.js';

export const OPENAPI_DOCUMENT_PATH = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));
export const API_GUIDE_PATH = fileURLToPath(new URL('../../docs/api.md', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(OPENAPI_DOCUMENT_PATH, renderOpenApiDocument());
  process.stdout.write(`wrote ${OPENAPI_DOCUMENT_PATH}\n`);
  writeFileSync(API_GUIDE_PATH, withIdRules(readFileSync(API_GUIDE_PATH, 'utf8')));
  process.stdout.write(`wrote the id rules in ${API_GUIDE_PATH}\n`);
}
