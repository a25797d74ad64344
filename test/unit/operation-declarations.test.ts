/**
 * Every write operation is one declaration (src/domain/operations/<family>/<family>.operations.ts):
 * this fails when one misses a piece the compiler cannot see missing: a rules module that holds
 * rules, or a reason for having none; a route's example that its derived body and its response
 * codec accept; a route whose handler and workflow know the operation.
 */
import { operationHandlers } from '../../src/activities/operations';
import { writeBodyOf } from '../../src/api/routes/write-route';
import type { OperationDeclaration } from '../../src/domain/operations/define-operation';
import { operationRegistry, operations } from '../../src/domain/operations/registry';

const declarations = Object.entries(operationRegistry as Record<string, Partial<OperationDeclaration>>);

it.each(declarations)('%s names its rules module, or says why it needs none', (_name, declaration) => {
  const { rules } = declaration;
  expect(rules).toBeDefined();
  if (rules && 'none' in rules) expect((rules as { none: string }).none.length).toBeGreaterThan(10);
  else expect(Object.values(rules ?? {}).some((rule) => typeof rule === 'function')).toBe(true);
});

it.each(declarations)('%s has a route whose example its body and response accept, or says who runs it', (name, declaration) => {
  const { route } = declaration;
  expect(route).toBeDefined();
  if (!route || 'internal' in route) {
    expect((route as { internal: string } | undefined)?.internal.length).toBeGreaterThan(10);
    return;
  }
  expect(route.example?.request).toBeDefined();
  expect(writeBodyOf(name as (typeof operations)[number]).decode(route.example.request)._tag).toBe('Right');
  expect(route.response.decode(route.example.response)._tag).toBe('Right');
});

it('has a handler for every declared operation and none for another', () => {
  expect(Object.keys(operationHandlers).sort()).toEqual([...operations].sort());
});

it('declares every operationId and path once', () => {
  const routes = declarations.flatMap(([, d]) => (d.route && 'operationId' in d.route ? [d.route] : []));
  expect(new Set(routes.map((r) => r.operationId)).size).toBe(routes.length);
  expect(new Set(routes.map((r) => `${r.method} ${r.path}`)).size).toBe(routes.length);
});
