/**
 * Rewrites a JSON Schema produced by zod into the subset that every function-calling client accepts, without
 * changing which values it allows. Applied once at boot to every tool's input and output schema
 * (`registry.ts`), so the rule lives here and nowhere else.
 *
 * Why: zod writes `nullable()` as a `type` array (`["string","null"]`) and open objects as
 * `additionalProperties: {}`. Both are legal JSON Schema, but clients that map tool schemas onto a
 * single-`type` dialect (Gemini's function declarations, the OpenAPI 3.0 subset) reject the tool or drop the
 * constraint, and strict modes (OpenAI structured outputs) want every object to say whether it is open. The
 * MCP Inspector's `--strict` check reports exactly these (see `test/support/schema-portability.ts`).
 *
 * - `type: [A, B]` → `anyOf: [{type: A, …A's keywords}, {type: B, …}]`; annotations (`description`,
 *   `default`…) and whole-value keywords (`enum`, `const`) stay on the outer schema;
 * - an untyped `additionalProperties: {}` (any value) → `additionalProperties: true` (the same contract, in the
 *   boolean spelling every checker accepts in that position);
 * - an object schema without `additionalProperties` → `false`. zod leaves it out only for plain `z.object`s in
 *   input schemas, whose unknown keys are dropped on parse: nothing sent there reaches the tool, so "not
 *   allowed" is the honest contract (every value the schema allows is still accepted).
 */

type Json = Record<string, unknown>;

/** Keywords that apply to one JSON type only; they move into that type's `anyOf` branch. */
const KEYWORDS_BY_TYPE: Record<string, readonly string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format', 'contentMediaType', 'contentEncoding'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains'],
  object: [
    'properties',
    'required',
    'additionalProperties',
    'patternProperties',
    'propertyNames',
    'minProperties',
    'maxProperties',
  ],
  boolean: [],
  null: [],
};

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SCHEMA_SLOTS = ['items', 'additionalProperties', 'propertyNames', 'contains', 'not', 'if', 'then', 'else'];

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An object with nothing that constrains a value (`{}` or annotations only): any value. */
function acceptsAnything(schema: Json): boolean {
  return Object.keys(schema).every((key) => ['description', 'title', '$comment'].includes(key));
}

function splitTypeUnion(schema: Json): Json {
  const types = schema.type as string[];
  const outer: Json = { ...schema };
  delete outer.type;
  const moved = new Set(types.flatMap((type) => KEYWORDS_BY_TYPE[type] ?? []));
  for (const key of moved) delete outer[key];
  const branches = types.map((type) => {
    const branch: Json = { type };
    for (const key of KEYWORDS_BY_TYPE[type] ?? []) if (key in schema) branch[key] = schema[key];
    return branch;
  });
  return { ...outer, anyOf: branches };
}

/** A portable copy of `schema` (the input is not modified). */
export function portableSchema(schema: Json): Json {
  let node: Json = { ...schema };
  if (Array.isArray(node.type)) node = splitTypeUnion(node);
  for (const key of SCHEMA_MAPS) {
    const map = node[key];
    if (isObject(map)) {
      node[key] = Object.fromEntries(
        Object.entries(map).map(([name, child]) => [name, isObject(child) ? portableSchema(child) : child]),
      );
    }
  }
  for (const key of SCHEMA_LISTS) {
    const list = node[key];
    if (Array.isArray(list)) node[key] = list.map((child) => (isObject(child) ? portableSchema(child) : child));
  }
  for (const key of SCHEMA_SLOTS) {
    const child = node[key];
    if (isObject(child)) node[key] = portableSchema(child);
  }
  if (node.type === 'object') {
    const additional = node.additionalProperties;
    if (additional === undefined) node.additionalProperties = false;
    else if (isObject(additional) && acceptsAnything(additional)) node.additionalProperties = true;
  }
  return node;
}
