/** Examples of the system routes and the file route (no request bodies: GET). */
import type { OperationExample } from './operation-examples';

export const systemExamples: Record<string, OperationExample> = {
  fetchHealth: { response: { status: 'ok' } },
  fetchReadiness: { response: { status: 'ready' }, otherResponses: { 503: { status: 'not ready' } } },
  fetchMetrics: { response: 'ledger_http_requests_total{method="POST",route="/api/v1/accounts",status="201"} 12\n' },
  fetchOpenApiDocument: { response: { openapi: '3.1.0', info: { title: 'Ledger Asset Service API', version: '1.0.0' }, paths: {} } },
  fetchApiDocs: {
    response:
      '<!doctype html><html lang="en"><head><title>Ledger Asset Service API</title><link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head><body><div id="docs"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>…</body></html>',
  },
  fetchApiDocsAsset: { response: '/* swagger-ui.css, swagger-ui-bundle.js or docs.js */' },
  fetchFile: { response: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#2a7"/></svg>' },
};
