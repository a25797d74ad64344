import fs from 'node:fs';
import http from 'node:http';
import { startStack, type Stack } from '../support/stack';
let stack: Stack;
beforeAll(async () => { stack = await startStack(); });
afterAll(async () => { await stack?.close(); });
function post(agent: http.Agent, body: string): Promise<{ status: number; headers: unknown; ms: number; text: string }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const u = new URL(stack.api.url + '/api/v1/accounts/bulk/compact');
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.apiKey}`, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = ''; res.on('data', (c) => (text += c)); res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, ms: Date.now() - t0, text: text.slice(0, 100) }));
    });
    req.setTimeout(5000, () => { req.destroy(); resolve({ status: 0, headers: {}, ms: Date.now() - t0, text: 'timeout' }); });
    req.on('error', (e) => resolve({ status: -1, headers: {}, ms: Date.now() - t0, text: e.message }));
    req.end(body);
  });
}
it('probe', async () => {
  const out: unknown[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  out.push(await post(agent, '{}'));
  out.push(await post(agent, JSON.stringify({ itemData: { comments: 'x'.repeat(1.5 * 1024 * 1024) } })));
  out.push(await post(agent, '{}'));
  out.push(await post(agent, '{}'));
  // fetch (undici) the same way
  const f = async (body: string) => { const t0 = Date.now(); try { const r = await fetch(stack.api.url + '/api/v1/accounts/bulk/compact', { method: 'POST', signal: AbortSignal.timeout(5000), headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.apiKey}` }, body }); return { status: r.status, conn: r.headers.get('connection'), ms: Date.now() - t0 }; } catch (e) { return { err: (e as Error).name, ms: Date.now() - t0 }; } };
  out.push('fetch');
  out.push(await Promise.all(Array.from({ length: 7 }, () => f(JSON.stringify({ c: 'x'.repeat(1.5 * 1024 * 1024) })))));
  out.push(await Promise.all(Array.from({ length: 20 }, () => f('{}'))));
  agent.destroy();
  fs.writeFileSync('/tmp/probe/ka.json', JSON.stringify(out, null, 1));
});
