/** Health, readiness, metrics, the OpenAPI document and the human docs page: no authentication. */
import type { ApiDeps } from '../context';
import { route, type RouteSpec } from '../route';
import { healthResponse, openApiDocumentResponse, readinessResponse } from '../responses/system.responses';

export function systemRoutes(deps: ApiDeps, openApi: () => unknown, metrics: () => Promise<string>): RouteSpec[] {
  return [
    route({ operationId: 'fetchHealth', method: 'get', path: '/health', tag: 'System', summary: 'Liveness: the process answers.', role: null, successStatus: 200, response: healthResponse, handler: async () => ({ status: 'ok' as const }) }),
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
    route({
      operationId: 'fetchMetrics',
      method: 'get',
      path: '/metrics',
      tag: 'System',
      summary: 'Prometheus metrics of this API process (they span tenants, so an ADMIN key is needed).',
      role: 'ADMIN',
      usesCluster: false,
      successStatus: 200,
      response: { mediaType: 'text/plain', schema: { type: 'string' }, description: 'Prometheus text exposition format 0.0.4.' },
      async handler(ctx) {
        ctx.type = 'text/plain; version=0.0.4';
        return metrics();
      },
    }),
    route({ operationId: 'fetchOpenApiDocument', method: 'get', path: '/api/v1/openapi.json', tag: 'System', summary: 'This OpenAPI document.', role: null, successStatus: 200, response: openApiDocumentResponse, handler: async () => openApi() as Record<string, unknown> }),
    route({
      operationId: 'fetchApiDocs',
      method: 'get',
      path: '/docs',
      tag: 'System',
      summary: 'Human-readable API documentation.',
      role: null,
      successStatus: 200,
      response: { mediaType: 'text/html', schema: { type: 'string' }, description: 'A page that renders this document.' },
      async handler(ctx) {
        ctx.type = 'text/html';
        return docsPage();
      },
    }),
  ];
}

/** A self-contained page that renders the OpenAPI document (no external scripts: the service may run offline). */
function docsPage(): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Ledger Asset Service API</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
h2{border-bottom:1px solid #ddd;padding-bottom:.3rem;margin-top:2rem}.op{margin:1rem 0;padding:.6rem;border:1px solid #eee;border-radius:6px}
.m{display:inline-block;min-width:4rem;font-weight:bold}.post{color:#2a7}.patch{color:#a72}.get{color:#27a}code,pre{background:#f6f6f6;padding:.1rem .3rem}
pre{padding:.5rem;overflow:auto;font-size:.85rem}details summary{cursor:pointer}</style></head>
<body><h1>Ledger Asset Service API</h1><p>Machine-readable document: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.
Send <code>Authorization: Bearer &lt;api key&gt;</code>. Errors: <code>{"errors":[{"code","message","field"}],"requestId"}</code>.</p><div id="ops">Loading…</div>
<script>
fetch('/api/v1/openapi.json').then(r=>r.json()).then(doc=>{const byTag={};for(const [path,ops] of Object.entries(doc.paths))for(const [method,op] of Object.entries(ops))(byTag[op.tags[0]]=byTag[op.tags[0]]||[]).push({path,method,op});
const esc=s=>String(s).replace(/[&<>]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;'}[c]));const resolve=s=>s&&s.$ref?doc.components.schemas[s.$ref.split('/').pop()]:s;
let html='';for(const [tag,list] of Object.entries(byTag)){html+='<h2>'+esc(tag)+'</h2>';for(const {path,method,op} of list){const body=op.requestBody&&resolve(op.requestBody.content['application/json'].schema);
html+='<div class="op"><span class="m '+method+'">'+method.toUpperCase()+'</span><code>'+esc(path)+'</code><p>'+esc(op.summary)+(op.description?' '+esc(op.description):'')+'</p>'+(body?'<details><summary>Request body</summary><pre>'+esc(JSON.stringify(body,null,2))+'</pre></details>':'')+'</div>';}}
html+='<h2>Schemas</h2><details><summary>All schemas</summary><pre>'+esc(JSON.stringify(doc.components.schemas,null,2))+'</pre></details>';document.getElementById('ops').innerHTML=html;});
</script></body></html>`;
}
