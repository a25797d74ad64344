/**
 * The field sweep's two sources: every request field of the served OpenAPI document (by the schema
 * that declares it), and, for every test case of the suite, the request fields it sends or names
 * in a refusal. Read with the TypeScript compiler, not with regular expressions, so a field named
 * only in a comment or in a test's title does not count.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema; additionalProperties?: unknown } & Record<string, unknown>;

/** An operation as tests call it: by its route, or by its name in the registry (createAccount → CREATE_ACCOUNT). */
export interface Operation {
  route: string;
  name: string;
}

/** `Schema.property` for every property of every schema a request body reaches (request bodies inline in an operation are named by its operationId), with the operations that reach it. */
export function requestFields(document: {
  paths: Record<string, Record<string, any>>;
  components?: { schemas?: Record<string, Schema> };
}): Map<string, Operation[]> {
  const components = document.components?.schemas ?? {};
  const fields = new Map<string, Operation[]>();
  const walk = (schema: Schema, owner: string, operation: Operation, seen: Set<string>) => {
    if (schema.$ref) {
      const name = schema.$ref.split('/').pop()!;
      if (!seen.has(name)) walk(components[name]!, name, operation, new Set([...seen, name]));
      return;
    }
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) for (const part of (schema[key] as Schema[] | undefined) ?? []) walk(part, owner, operation, seen);
    if (schema.items) walk(schema.items, owner, operation, seen);
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') walk(schema.additionalProperties as Schema, owner, operation, seen);
    for (const [property, value] of Object.entries(schema.properties ?? {})) {
      const field = `${owner}.${property}`;
      if (!fields.has(field)) fields.set(field, []);
      if (!fields.get(field)!.includes(operation)) fields.get(field)!.push(operation);
      walk(value, owner, operation, seen);
    }
  };
  for (const [route, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const schema = operation?.requestBody?.content?.['application/json']?.schema as Schema | undefined;
      const id: string = operation?.operationId ?? `${method.toUpperCase()} ${route}`;
      const name = id.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
      if (schema) walk(schema, id, { route, name }, new Set());
    }
  }
  return fields;
}

export interface TestCase {
  /** `file › describe › it`. */
  name: string;
  /** Property names it writes in object literals, and the last segments of the `itemData.…` paths it names. */
  names: Set<string>;
  /** The string literals it holds (routes, operation names). */
  strings: Set<string>;
}

/** Whether a test case sends (or names in a refusal) `property` in a request of one of `operations`. */
export function proves(testCase: TestCase, property: string, operations: Operation[]): boolean {
  return testCase.names.has(property) && operations.some((o) => testCase.strings.has(o.route) || testCase.strings.has(o.name));
}

const titleOf = (node: ts.CallExpression) => {
  const first = node.arguments[0];
  return first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first)) ? first.text : undefined;
};

/** Every `it`/`test` case of the test files under `dirs`, with the request field names it uses. */
export function testCases(root: string, dirs: string[]): TestCase[] {
  const cases: TestCase[] = [];
  const files = dirs.flatMap((dir) =>
    (fs.readdirSync(path.join(root, dir), { recursive: true }) as string[]).filter((f) => f.endsWith('.test.ts')).map((f) => path.join(dir, f)),
  );
  for (const file of files) {
    const source = ts.createSourceFile(file, fs.readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
    // Fields written by helpers outside a case (a file's fixtures) count for every case of the file.
    const fileNames = new Set<string>();
    const fileStrings = new Set<string>();
    const visit = (node: ts.Node, titles: string[], names: Set<string>, strings: Set<string>) => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
        const callee = node.expression.text;
        const title = titleOf(node);
        if (title !== undefined && (callee === 'describe' || callee === 'it' || callee === 'test')) {
          const own = callee === 'describe' ? { names, strings } : { names: new Set<string>(), strings: new Set<string>() };
          node.arguments.slice(1).forEach((arg) => visit(arg, [...titles, title], own.names, own.strings));
          if (callee !== 'describe') cases.push({ name: [file, ...titles, title].join(' › '), ...own });
          return;
        }
      }
      if (
        (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) &&
        node.name &&
        (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))
      )
        names.add(node.name.text);
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
        strings.add(node.text);
        if (/^itemData[.[]/.test(node.text))
          names.add(
            node.text
              .split(/[.[\]]/)
              .filter(Boolean)
              .pop()!,
          );
      }
      ts.forEachChild(node, (child) => visit(child, titles, names, strings));
    };
    ts.forEachChild(source, (child) => visit(child, [], fileNames, fileStrings));
    for (const c of cases) {
      if (!c.name.startsWith(`${file} ›`)) continue;
      for (const n of fileNames) c.names.add(n);
      for (const s of fileStrings) c.strings.add(s);
    }
  }
  return cases;
}
