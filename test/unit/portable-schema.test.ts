/**
 * The portable rewrite of tool schemas (`src/mcp/portable-schema.ts`): each rule, and that a rewritten schema
 * accepts exactly the values zod's own JSON Schema accepts (checked with ajv on values at the edges).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { portableSchema } from '../../src/mcp/portable-schema.ts';
import { CATALOGUE } from '../../src/mcp/registry.ts';
import { lintTools } from '../support/schema-portability.ts';

const ajv = new Ajv2020({ strict: false });
const zodJson = (schema: z.ZodType, io: 'input' | 'output' = 'output') =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;

it('splits a nullable type array into anyOf branches, keeping each constraint with its type', () => {
  const json = zodJson(
    z.object({ price: z.number().min(0).nullable().describe('Price'), name: z.string().max(5).nullable() }),
  );
  const portable = portableSchema(json);
  expect((portable.properties as Record<string, unknown>).price).toEqual({
    description: 'Price',
    anyOf: [{ type: 'number', minimum: 0 }, { type: 'null' }],
  });
  expect((portable.properties as Record<string, unknown>).name).toEqual({
    anyOf: [{ type: 'string', maxLength: 5 }, { type: 'null' }],
  });
});

it('writes an open object as additionalProperties: true and closes objects that did not say', () => {
  const loose = portableSchema(zodJson(z.looseObject({ id: z.string() })));
  expect(loose.additionalProperties).toBe(true);
  const stripped = portableSchema(zodJson(z.object({ nested: z.object({ a: z.string() }) }), 'input'));
  expect(stripped.additionalProperties).toBe(false);
  expect((stripped.properties as Record<string, Record<string, unknown>>).nested!.additionalProperties).toBe(false);
  const record = portableSchema(zodJson(z.record(z.string(), z.unknown())));
  expect(record.additionalProperties).toBe(true);
});

it('accepts exactly what the original accepts (output schemas, values at the edges)', () => {
  const schema = z.looseObject({
    id: z.string(),
    note: z.string().max(3).nullable(),
    count: z.number().int().min(1).nullable().optional(),
    tags: z.array(z.string()).nullable(),
    extra: z.record(z.string(), z.unknown()).nullable(),
  });
  const original = ajv.compile(zodJson(schema));
  const portable = ajv.compile(portableSchema(zodJson(schema)));
  const values: unknown[] = [
    { id: 'a', note: null, tags: null, extra: null },
    { id: 'a', note: 'abc', tags: ['x'], extra: { any: [1, { b: null }] }, count: 2, more: true },
    { id: 'a', note: 'abcd', tags: null, extra: null },
    { id: 'a', note: 1, tags: null, extra: null },
    { id: 'a', note: null, tags: [1], extra: null },
    { id: 'a', note: null, tags: null, extra: null, count: 0 },
    { id: 'a', note: null, tags: null, extra: null, count: 1.5 },
    { id: 'a', note: null, tags: null, extra: 'x' },
    { note: null, tags: null, extra: null },
    null,
    'text',
  ];
  for (const value of values)
    expect({ value, accepted: portable(value) }).toEqual({ value, accepted: original(value) });
});

it('leaves no finding of the strict check in any compiled listing', () => {
  for (const [name, profile] of CATALOGUE)
    expect({ name, findings: lintTools(profile.listing) }).toEqual({ name, findings: [] });
});
