/**
 * Profiles and call codes over real MCP clients, plus the contract snapshots: `tools/list`, `resources/list`
 * and `prompts/list` per profile. A change to any tool's name, description, schema or annotations, or to what
 * a profile shows, changes a snapshot and must be reviewed (`npm run test:jest -- -u` rewrites them).
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PROFILES } from '../../src/mcp/profiles.ts';
import { createKey, createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch } from '../support/http.ts';
import { connectV1, connectV2, type ConnectedClient } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { lintTools } from '../support/schema-portability.ts';
import { workerEnv } from '../support/worker-process.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';

let platform: TestPlatform;
let tenant: Tenant;
let other: Tenant;
const codes = new Map<string, string>();

const issue = async (profile: string, workspaceId: string | null = null) =>
  (
    await platform.container.services.callCodes.issue(
      acrossWorkspaces(platform.container.orm.em),
      { profile, workspaceId },
      'test',
    )
  ).code;

const urlWith = (query: string) => `${platform.urls.mcp}?${query}`;

beforeAll(async () => {
  // No caching of call-code answers here, so a revocation is visible on the next request.
  platform = await startTestPlatform({ label: 'profiles', env: { CALL_CODE_CACHE_TTL_MS: '0' } });
  tenant = await createTenant(platform.container, { name: 'Contract Co' });
  other = await createTenant(platform.container, { name: 'Other Co' });
  for (const profile of PROFILES) if (profile.requiresCallCode) codes.set(profile.name, await issue(profile.name));
});

afterAll(async () => {
  await platform.close();
  await closeTestFetch();
});

async function withClient<T>(
  url: string,
  fn: (client: ConnectedClient) => Promise<T>,
  apiKey = tenant.apiKey,
): Promise<T> {
  const client = await connectV2(url, { 'x-api-key': apiKey });
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

const toolNames = (url: string, apiKey?: string) =>
  withClient(url, async (c) => (await c.listTools()).map((t) => t.name), apiKey);
const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

describe('contract snapshots', () => {
  it('tools/list of the default profile, in full', async () => {
    const tools = await withClient(platform.urls.mcp, (c) => c.listTools());
    expect(tools).toMatchSnapshot();
  });

  it.each(PROFILES.map((p) => [p.name]))('%s: tools, resources and prompts', async (name) => {
    const url =
      name === 'external_default'
        ? platform.urls.mcp
        : name === 'discovery'
          ? urlWith('profile=unknown-code')
          : urlWith(`profile=${codes.get(name)}`);
    const listing = await withClient(url, async (client) => ({
      // Each tool's full listing is pinned by the default-profile snapshot; here its digest pins that the
      // profile serves exactly the same definition.
      tools: (await client.listTools()).map((tool) => `${tool.name} ${digest(tool)}`),
      resources: (await client.listResources()).map(
        (r) => `${r.uri.replace(tenant.workspaceId, '{workspace}')} ${r.mimeType}`,
      ),
      resourceTemplates: (await client.listResourceTemplates()).map((t) => t.uriTemplate),
      prompts: (await client.listPrompts()).map(
        (p) => `${p.name}(${(p.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ')})`,
      ),
    }));
    expect(listing).toMatchSnapshot();
  });
});

const profileUrl = (name: string) =>
  name === 'external_default'
    ? platform.urls.mcp
    : name === 'discovery'
      ? urlWith('profile=unknown-code')
      : urlWith(`profile=${codes.get(name)}`);

describe('schema portability', () => {
  // Its own key: these listings would otherwise eat the per-key rate limit the other tests share.
  let apiKey: string;
  beforeAll(async () => {
    apiKey = await createKey(platform.container, tenant, 'viewer');
  });

  // The MCP Inspector's `--strict` check (type arrays, untyped schemas, bare booleans, remote refs) plus
  // "every object states additionalProperties", over what real clients of both eras are served.
  it.each(PROFILES.map((p) => [p.name]))('%s: every input and output schema passes the strict check', async (name) => {
    for (const connect of [connectV2, connectV1]) {
      const client = await connect(profileUrl(name), { 'x-api-key': apiKey });
      try {
        const tools = await client.listTools();
        expect(tools.length).toBeGreaterThan(0);
        expect({ era: client.era, findings: lintTools(tools) }).toEqual({ era: client.era, findings: [] });
      } finally {
        await client.close();
      }
    }
  });
});

describe('profile selection', () => {
  it('uses external_default without a parameter, and the profile of a call code with ?profile= or ?call_code=', async () => {
    expect(await toolNames(platform.urls.mcp)).toContain('manage_campaigns');
    const expected = [...PROFILES.find((p) => p.name === 'video_ops')!.tools];
    expect((await toolNames(urlWith(`profile=${codes.get('video_ops')}`))).sort()).toEqual(expected.sort());
    expect((await toolNames(urlWith(`call_code=${codes.get('video_ops')}`))).sort()).toEqual(expected.sort());
  });

  it('answers a profile name, an unknown code or an empty-looking code with the discovery profile', async () => {
    for (const query of [
      'profile=campaign_ops',
      'profile=autonomous_ops',
      'call_code=external_default',
      'profile=cc_not-a-real-code',
      `profile=${'x'.repeat(500)}`,
    ]) {
      expect({ query, tools: await toolNames(urlWith(query)) }).toEqual({ query, tools: ['get_platform_info'] });
    }
  });

  it('honours a code limited to one workspace only there', async () => {
    const limited = await issue('campaign_ops', tenant.workspaceId);
    expect(await toolNames(urlWith(`profile=${limited}`))).toContain('manage_campaigns');
    expect(await toolNames(urlWith(`profile=${limited}`), other.apiKey)).toEqual(['get_platform_info']);
  });

  it('falls back to discovery once a code is revoked', async () => {
    const code = await issue('campaign_ops');
    expect(await toolNames(urlWith(`profile=${code}`))).toContain('manage_campaigns');
    const em = acrossWorkspaces(platform.container.orm.em);
    const [listed] = (await platform.container.services.callCodes.list(em)).filter(
      (c) => code.startsWith(c.prefix) && !c.revokedAt,
    );
    await platform.container.services.callCodes.revoke(em, listed!.id);
    expect(await toolNames(urlWith(`profile=${code}`))).toEqual(['get_platform_info']);
  });

  it('never changes permissions: a viewer with the broadest profile still cannot mutate', async () => {
    const viewerKey = await createKey(platform.container, tenant, 'viewer');
    const result = await withClient(
      urlWith(`profile=${codes.get('autonomous_ops')}`),
      (c) => c.callTool('manage_campaigns', { action: 'create', name: 'Nope' }),
      viewerKey,
    );
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/^forbidden: /);
  });

  it('lists the live profiles, names the current one and never echoes the code (v1 client too)', async () => {
    const code = codes.get('campaign_ops')!;
    const client = await connectV1(urlWith(`profile=${code}`), { 'x-api-key': tenant.apiKey });
    try {
      const result = await client.callTool('get_platform_info', { topic: 'tool_profiles' });
      const profiles = (
        result.structuredContent as { profiles: { current: string; available: { name: string; tools: string[] }[] } }
      ).profiles;
      expect(profiles.current).toBe('campaign_ops');
      expect(profiles.available.map((p) => p.name)).toEqual(PROFILES.map((p) => p.name));
      expect(profiles.available.find((p) => p.name === 'external_default')!.tools).toContain('query_campaigns');
      const everything = JSON.stringify([
        result,
        await client.listTools(),
        await client.readResource('svc://capabilities'),
        await client.listResources(),
        await client.listPrompts(),
      ]);
      expect(everything).not.toContain(code);
      expect(everything).not.toContain(code.slice(3));
    } finally {
      await client.close();
    }
  });
});

describe('call codes through the operator CLI', () => {
  // Asynchronous on purpose: a synchronous spawn would freeze this process, and with it the in-process server
  // and the HTTP client's keep-alive timers, so a pooled connection could be reused just as the server drops it.
  const cli = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, ['src/cli/campaignctl.ts', ...args], {
        env: workerEnv(platform.config),
        encoding: 'utf8',
        timeout: 60_000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return { code: failed.code ?? null, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
    }
  };

  it('issues (shown once), lists (never the code) and revokes, with clear errors', async () => {
    const issued = await cli(
      'callcode:issue',
      '--profile',
      'analytics_read',
      '--workspace',
      tenant.workspaceId,
      '--note',
      'reporting agent',
      '--json',
    );
    expect(issued).toMatchObject({ code: 0, stderr: '' });
    const { code, id, profile, workspaceId } = JSON.parse(issued.stdout) as Record<string, string>;
    expect({ profile, workspaceId }).toEqual({ profile: 'analytics_read', workspaceId: tenant.workspaceId });
    expect(code).toMatch(/^cc_[A-Za-z0-9_-]{24}$/);
    const stored = await platform.container.orm.em
      .getConnection()
      .execute<{ code_hash: string }[]>('select code_hash from call_codes where id = ?', [id]);
    expect(stored[0]!.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[0]!.code_hash).not.toContain(code);

    const listed = await cli('callcode:list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('reporting agent');
    expect(listed.stdout).not.toContain(code);
    expect(await toolNames(urlWith(`profile=${code}`))).toContain('query_products');

    expect(await cli('callcode:revoke', '--id', id!)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`Revoked call code ${id}`),
    });
    expect(await toolNames(urlWith(`profile=${code}`))).toEqual(['get_platform_info']);

    const wrongProfile = await cli('callcode:issue', '--profile', 'external_default');
    expect(wrongProfile.code).not.toBe(0);
    expect(wrongProfile.stderr).toContain('profile: must be one of');
    const unknownWorkspace = await cli(
      'callcode:issue',
      '--profile',
      'video_ops',
      '--workspace',
      'ws_01J00000000000000000000000',
    );
    expect(unknownWorkspace.code).not.toBe(0);
    expect(unknownWorkspace.stderr).toMatch(/not found/);
  });
});
