/**
 * Property-based: arbitrary arguments thrown at every tool and action over a real MCP client. Whatever comes
 * in, the answer is a structured error with a stable, known code or a result that matches the tool's output
 * schema — never an internal error — and an error never leaves a change behind.
 */
import fc from 'fast-check';
import { CATALOGUE } from '../../src/mcp/registry.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { connectV2, type ConnectedClient } from '../support/mcp-clients.ts';
import { profileUrl, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { domainFingerprint, seedWorkspace, type SeededWorkspace } from '../support/seed.ts';

/** Every code a tool error may carry (see src/errors.ts and src/mcp/call-tool.ts). */
const KNOWN_CODES = new Set(['validation_failed', 'not_found', 'conflict', 'forbidden', 'deprecated_action']);

let platform: TestPlatform;
let tenant: Tenant;
let other: Tenant;
let ids: SeededWorkspace;
let otherIds: SeededWorkspace;
let client: ConnectedClient;

/** Whether a value has a `__proto__` key, or `constructor.prototype`, at any depth (values do not count). */
function hasPoisonKey(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false;
  return Object.keys(value).some((key) => {
    const child = (value as Record<string, unknown>)[key];
    if (key === '__proto__') return true;
    if (key === 'constructor' && child && typeof child === 'object' && 'prototype' in child) return true;
    return hasPoisonKey(child);
  });
}

beforeAll(async () => {
  // Far more calls than a person's agent makes: lift the per-token limit for this file.
  platform = await startTestPlatform({ label: 'toolprops', env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  tenant = await createTenant(platform.container, { name: 'Props' });
  other = await createTenant(platform.container, { name: 'Elsewhere' });
  ids = await seedWorkspace(platform.container, tenant, 'Props');
  otherIds = await seedWorkspace(platform.container, other, 'Elsewhere');
  // Every tool: the autonomous profile's call code (the channel tools are not in the default profile).
  const url = await profileUrl(platform, 'autonomous_ops');
  client = await connectV2(url, { 'x-api-key': tenant.apiKey });
});

afterAll(async () => {
  await client?.close();
  await platform.close();
  await closeTestFetch();
});

/** Values an agent might plausibly (or implausibly) send for any field. */
function fieldValue(): fc.Arbitrary<unknown> {
  const realIds = () => [...Object.values(ids), ...Object.values(otherIds)];
  return fc.oneof(
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ minLength: 200, maxLength: 6000 }) },
    { weight: 2, arbitrary: fc.constantFrom(...realIds()) },
    { weight: 1, arbitrary: fc.array(fc.constantFrom(...realIds()), { maxLength: 3 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        null,
        -1,
        0,
        1.5,
        1e308,
        true,
        'http://127.0.0.1/',
        'javascript:alert(1)',
        '#zzz',
        '<script>x</script>',
        '../../etc/passwd',
        "'; drop table campaigns; --",
        '\u0000',
        '2026-13-45T99:00:00Z',
      ),
    },
  );
}

const cases = [...CATALOGUE.get('autonomous_ops')!.tools.values()].flatMap(({ definition }) =>
  Object.keys(definition.actions).map((value) => ({
    tool: definition.name,
    selector: definition.selector,
    value,
    definition,
  })),
);

it.each(cases.map((c) => [`${c.tool} ${c.selector}=${c.value}`, c]))(
  '%s',
  async (_label, { tool, selector, value, definition }) => {
    const fields = Object.keys(definition.input.shape).filter((field) => field !== selector);
    const args = fc.tuple(
      fc.dictionary(fc.constantFrom(...fields, 'unexpected', '__proto__'), fieldValue(), { maxKeys: 6 }),
      fc.oneof({ weight: 9, arbitrary: fc.constant(value) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
    );
    await fc.assert(
      fc.asyncProperty(args, async ([extra, selectorValue]) => {
        const input = { ...extra, [selector]: selectorValue };
        const before = await domainFingerprint(platform.container, tenant.workspaceId);
        if (hasPoisonKey(input)) {
          // The JSON parser refuses prototype-poisoning keys before anything runs, with a specific error.
          await expect(client.callTool(tool, input)).rejects.toThrow(
            /the JSON keys __proto__ and constructor.prototype are not accepted/,
          );
          expect(await domainFingerprint(platform.container, tenant.workspaceId)).toBe(before);
          return;
        }
        const result = await client.callTool(tool, input);
        const text = result.content[0]?.text;
        expect(typeof text).toBe('string');
        if (result.isError) {
          const error = result._meta?.['io.campaign-platform/error'] as { code: string } | undefined;
          if (!error || !KNOWN_CODES.has(error.code))
            throw new Error(`unexpected error ${JSON.stringify(error)} for ${JSON.stringify(input)}`);
          expect(text!.startsWith(`${error.code}: `)).toBe(true);
          expect(await domainFingerprint(platform.container, tenant.workspaceId)).toBe(before);
        } else {
          const parsed = definition.output.safeParse(result.structuredContent);
          if (!parsed.success) throw new Error(`output does not match the schema: ${parsed.error.message}`);
        }
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 20), endOnFailure: true },
    );
  },
);
