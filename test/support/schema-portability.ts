/**
 * The tool-schema portability check of the MCP Inspector's `--strict` mode, written out for our tests.
 *
 * Source: `@modelcontextprotocol/inspector` 2.12.0, `core/json/schemaLint.ts` (bundled into
 * `clients/cli/build/index.js`, not exported, hence this copy of its rules). It walks every subschema of a
 * tool's `inputSchema` and `outputSchema` and reports:
 *
 * - `boolean-schema` (error): a bare `true`/`false` where a schema object is expected (allowed only as the
 *   value of `additionalProperties`, `unevaluatedProperties`, `additionalItems`, `unevaluatedItems`);
 * - `type-union` (warning): `type` is an array of distinct JSON types (e.g. `["string","null"]`), which
 *   single-`type` dialects such as Gemini's function declarations reject;
 * - `remote-ref` (warning): a `$ref` that does not start with `#` (unless the schema embeds `$id`s);
 * - `untyped-schema` (warning): a schema object with no constraining keyword at all (`{}`, or only
 *   annotations such as `description`), i.e. "any value", except directly under `not`.
 *
 * One rule is ours, beyond the Inspector's, from the strictest function-calling modes (OpenAI strict
 * structured outputs): every object schema states `additionalProperties` (`object-open-unstated`).
 */

export type Severity = 'error' | 'warning';

export interface PortabilityFinding {
  rule: 'boolean-schema' | 'type-union' | 'remote-ref' | 'untyped-schema' | 'object-open-unstated';
  severity: Severity;
  schema: 'inputSchema' | 'outputSchema';
  /** Path inside the schema, in the Inspector's spelling (`properties.status.anyOf[0]`). */
  path: string;
}

const BOOLEAN_VALUED_KEYWORDS = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
]);
const SUBSCHEMA_KEYWORDS = [
  'items',
  'contains',
  'not',
  'propertyNames',
  'if',
  'then',
  'else',
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
  'contentSchema',
];
const SUBSCHEMA_ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAP_KEYWORDS = [
  'properties',
  'patternProperties',
  'dependentSchemas',
  'dependencies',
  '$defs',
  'definitions',
];
const CONSTRAINING_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'items',
  'prefixItems',
  'contains',
  'additionalItems',
  'unevaluatedItems',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'dependentSchemas',
  'dependencies',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
]);
const JSON_SCHEMA_TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'string', 'integer']);
const MAX_DEPTH = 64;

type SchemaObject = Record<string, unknown>;

const isRecord = (value: unknown): value is SchemaObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function childPath(parent: string, key: string): string {
  if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}

function forEachSubschema(
  node: SchemaObject,
  path: string,
  visit: (child: unknown, path: string, keyword: string) => void,
) {
  for (const key of SUBSCHEMA_MAP_KEYWORDS) {
    const map = node[key];
    if (!isRecord(map)) continue;
    for (const [name, sub] of Object.entries(map)) visit(sub, childPath(childPath(path, key), name), key);
  }
  for (const key of SUBSCHEMA_ARRAY_KEYWORDS) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((sub, i) => visit(sub, `${childPath(path, key)}[${i}]`, key));
  }
  for (const key of SUBSCHEMA_KEYWORDS) {
    if (!(key in node)) continue;
    const value = node[key];
    if (key === 'items' && Array.isArray(value)) {
      value.forEach((sub, i) => visit(sub, `${childPath(path, key)}[${i}]`, key));
      continue;
    }
    visit(value, childPath(path, key), key);
  }
}

function declaresAnyId(node: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH || !isRecord(node)) return false;
  if (typeof node.$id === 'string' && node.$id !== '') return true;
  let found = false;
  forEachSubschema(node, '', (child) => {
    if (!found) found = declaresAnyId(child, depth + 1);
  });
  return found;
}

function constrainsInstance(node: SchemaObject): boolean {
  if (Object.keys(node).some((key) => CONSTRAINING_KEYWORDS.has(key))) return true;
  return 'if' in node && ('then' in node || 'else' in node);
}

function isPortableTypeUnion(type: unknown[]): boolean {
  if (type.length === 0) return false;
  if (!type.every((t) => typeof t === 'string' && JSON_SCHEMA_TYPES.has(t))) return false;
  return new Set(type).size === type.length;
}

/** The findings for one schema (a tool's `inputSchema` or `outputSchema`). */
export function lintSchema(schema: unknown, kind: PortabilityFinding['schema']): PortabilityFinding[] {
  const findings: PortabilityFinding[] = [];
  const hasEmbeddedIds = declaresAnyId(schema);
  const add = (rule: PortabilityFinding['rule'], severity: Severity, path: string) =>
    findings.push({ rule, severity, schema: kind, path });

  const walk = (node: unknown, path: string, keyword: string | undefined, depth: number) => {
    if (depth > MAX_DEPTH) return;
    if (typeof node === 'boolean') {
      if (keyword === undefined || !BOOLEAN_VALUED_KEYWORDS.has(keyword)) add('boolean-schema', 'error', path);
      return;
    }
    if (!isRecord(node)) return;
    if (Array.isArray(node.type) && isPortableTypeUnion(node.type)) add('type-union', 'warning', path);
    if (typeof node.$ref === 'string' && node.$ref !== '' && !node.$ref.startsWith('#') && !hasEmbeddedIds) {
      add('remote-ref', 'warning', path);
    }
    if (!constrainsInstance(node) && keyword !== 'not') add('untyped-schema', 'warning', path);
    if (node.type === 'object' && !('additionalProperties' in node)) add('object-open-unstated', 'warning', path);
    forEachSubschema(node, path, (child, childPathValue, childKeyword) =>
      walk(child, childPathValue, childKeyword, depth + 1),
    );
  };
  walk(schema, '', undefined, 0);
  return findings;
}

/** Every finding of a `tools/list` listing, tool by tool (as `inspector --cli … --strict` reports them). */
export function lintTools(
  tools: readonly { name: string; inputSchema?: unknown; outputSchema?: unknown }[],
): { tool: string; finding: PortabilityFinding }[] {
  return tools.flatMap((tool) =>
    [
      ...(tool.inputSchema === undefined ? [] : lintSchema(tool.inputSchema, 'inputSchema')),
      ...(tool.outputSchema === undefined ? [] : lintSchema(tool.outputSchema, 'outputSchema')),
    ].map((finding) => ({ tool: tool.name, finding })),
  );
}

/** The Inspector's own rules only (without ours), to compare counts with its CLI. */
export const INSPECTOR_RULES: readonly PortabilityFinding['rule'][] = [
  'boolean-schema',
  'type-union',
  'remote-ref',
  'untyped-schema',
];
