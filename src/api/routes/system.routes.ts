/** Health, readiness, metrics, the OpenAPI document and the human docs page: no authentication. */
import fs from 'node:fs';
import path from 'node:path';
import type { ApiDeps } from '../context';
import { route, type RouteSpec } from '../route';
import { healthResponse, openApiDocumentResponse, readinessResponse } from '../../domain/responses/system.responses';

export function systemRoutes(deps: ApiDeps, openApi: () => unknown, metrics: () => Promise<string>): RouteSpec[] {
  return [
    route({
      operationId: 'fetchHealth',
      method: 'get',
      path: '/health',
      tag: 'System',
      summary: 'Liveness: the process answers.',
      role: null,
      successStatus: 200,
      response: healthResponse,
      handler: async () => ({ status: 'ok' as const }),
    }),
    route({
      operationId: 'fetchReadiness',
      method: 'get',
      path: '/ready',
      tag: 'System',
      summary: 'Readiness: PostgreSQL and Temporal answer.',
      role: null,
      successStatus: 200,
      response: readinessResponse,
      otherResponses: { 503: { description: 'Not ready: PostgreSQL or Temporal does not answer.', body: readinessResponse } },
      async handler(ctx) {
        const ready = await deps.ready().catch(() => false);
        ctx.state.status = ready ? 200 : 503;
        return { status: ready ? 'ready' : 'not ready' };
      },
    }),
    textRoute({
      operationId: 'fetchMetrics',
      path: '/metrics',
      summary: 'Prometheus metrics of this API process (they span tenants, so an ADMIN key is needed).',
      role: 'ADMIN',
      usesCluster: false,
      contentType: 'text/plain; version=0.0.4',
      description: 'Prometheus text exposition format 0.0.4.',
      render: metrics,
    }),
    route({
      operationId: 'fetchOpenApiDocument',
      method: 'get',
      path: '/api/v1/openapi.json',
      tag: 'System',
      summary: 'This OpenAPI document.',
      role: null,
      successStatus: 200,
      response: openApiDocumentResponse,
      handler: async () => openApi() as Record<string, unknown>,
    }),
    textRoute({
      operationId: 'fetchApiDocs',
      path: '/docs',
      summary: 'Human-readable API documentation.',
      role: null,
      contentType: 'text/html',
      description: 'Swagger UI on this document: every operation with its schemas and examples, and "Try it out" (Authorize with an API key first).',
      render: docsPage,
    }),
    route({
      operationId: 'fetchApiDocsAsset',
      method: 'get',
      path: '/docs/assets/{file}',
      tag: 'System',
      summary: 'The files of the docs page (Swagger UI, served by the service itself).',
      role: null,
      usesCluster: false,
      pathParams: { file: Object.keys(docsAssets) },
      successStatus: 200,
      response: { mediaType: 'text/plain', schema: { type: 'string' }, description: 'The file, with its content type (CSS or JavaScript).' },
      async handler(ctx) {
        const file = ctx.params.file;
        ctx.type = docsAssets[file];
        ctx.set('Cache-Control', 'public, max-age=3600');
        return docsAsset(file);
      },
    }),
  ];
}

/** Swagger UI's files, served from the swagger-ui-dist package: the docs work offline, nothing comes from a CDN. */
const docsAssets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'docs.js': 'application/javascript; charset=utf-8',
};
const swaggerUiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const assetCache = new Map<string, Buffer>();

/** Starts Swagger UI on this service's document, with "Try it out" on and the bearer key kept across reloads. */
const docsScript = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#docs', deepLinking: true, tryItOutEnabled: true, persistAuthorization: true, displayRequestDuration: true });`;

function docsAsset(file: string): Buffer {
  let bytes = assetCache.get(file);
  if (!bytes) {
    bytes = file === 'docs.js' ? Buffer.from(docsScript) : fs.readFileSync(path.join(swaggerUiDir, file));
    assetCache.set(file, bytes);
  }
  return bytes;
}

/** The docs page: Swagger UI (vendored from npm) rendering /api/v1/openapi.json, with "Try it out". */
function docsPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ledger Asset Service API</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="docs"></div><script src="/docs/assets/swagger-ui-bundle.js"></script><script src="/docs/assets/docs.js"></script></body></html>`;
}

/** A GET of the System tag answered with a text document (`contentType`; its media type without parameters in the document). */
function textRoute(
  spec: Pick<RouteSpec, 'operationId' | 'path' | 'summary' | 'role' | 'usesCluster'> & {
    contentType: string;
    description: string;
    render: () => string | Promise<string>;
  },
): RouteSpec {
  const { contentType, description, render, ...rest } = spec;
  return route({
    ...rest,
    method: 'get',
    tag: 'System',
    successStatus: 200,
    response: { mediaType: contentType.split(';')[0], schema: { type: 'string' }, description },
    async handler(ctx) {
      ctx.type = contentType;
      return render();
    },
  });
}
