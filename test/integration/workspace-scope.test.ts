/**
 * The scoping module (src/domain/shared/scope.ts) against the real database: a scope's EntityManager sees,
 * changes and deletes only its own workspace's rows, whatever the query says; a query of workspace-owned data
 * outside any scope is refused; `ACROSS_WORKSPACES` and `acrossWorkspaces` are the only ways to see them all.
 */
import { Campaign } from '../../src/domain/campaigns/campaign.entity.ts';
import { Variant } from '../../src/domain/campaigns/variant.entity.ts';
import {
  ACROSS_WORKSPACES,
  acrossWorkspaces,
  actors,
  forWorkspace,
  UnscopedQueryError,
  withEntityManager,
  workspaceScope,
  type WorkspaceScope,
} from '../../src/domain/shared/scope.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { seedWorkspace, type SeededWorkspace } from '../support/seed.ts';

let platform: TestPlatform;
let a: Tenant;
let b: Tenant;
let seededA: SeededWorkspace;
let seededB: SeededWorkspace;

const scopeOf = (tenant: Tenant): WorkspaceScope =>
  workspaceScope(platform.container.orm.em, tenant.workspaceId, actors.operator);

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'wsscope', worker: false });
  a = await createTenant(platform.container, { name: 'Scope A' });
  b = await createTenant(platform.container, { name: 'Scope B' });
  seededA = await seedWorkspace(platform.container, a, 'A');
  seededB = await seedWorkspace(platform.container, b, 'B');
});

afterAll(async () => {
  await platform.close();
});

it('reads only its own workspace, even when the query names another workspace’s ids', async () => {
  const scope = scopeOf(a);
  const campaigns = await scope.em.find(Campaign, {});
  expect(campaigns.length).toBeGreaterThan(0);
  expect(new Set(campaigns.map((c) => c.workspace.id))).toEqual(new Set([a.workspaceId]));

  expect(await scope.em.findOne(Campaign, { id: seededB.campaignId })).toBeNull();
  expect(await scope.em.count(Variant, { id: seededB.variantId })).toBe(0);
  // Even a query that asks for the other workspace by name gets nothing.
  expect(await scope.em.count(Campaign, { workspace: b.workspaceId })).toBe(0);
});

it('updates and deletes only its own workspace’s rows', async () => {
  const scope = scopeOf(a);
  const updated = await scope.em.nativeUpdate(Campaign, { id: seededB.campaignId }, { name: 'Taken over' });
  const deleted = await scope.em.nativeDelete(Variant, { id: seededB.variantId });
  expect({ updated, deleted }).toEqual({ updated: 0, deleted: 0 });

  const other = await acrossWorkspaces(platform.container.orm.em).findOneOrFail(Campaign, { id: seededB.campaignId });
  expect(other.name).not.toBe('Taken over');
  expect(await acrossWorkspaces(platform.container.orm.em).count(Variant, { id: seededB.variantId })).toBe(1);
});

it('keeps the limit inside a transaction and on another EntityManager of the same scope', async () => {
  const scope = scopeOf(a);
  const inTransaction = await scope.em.transactional((tx) => tx.count(Campaign, { id: seededB.campaignId }));
  const onFreshFork = withEntityManager(scope, acrossWorkspaces(platform.container.orm.em));
  expect(inTransaction).toBe(0);
  expect(await onFreshFork.em.findOne(Campaign, { id: seededB.campaignId })).toBeNull();
  expect(await forWorkspace(platform.container.orm.em, a.workspaceId).count(Campaign, { id: seededB.campaignId })).toBe(
    0,
  );
});

it('refuses a query of workspace-owned data outside any scope, and names the way out', async () => {
  const unscoped = platform.container.orm.em.fork();
  await expect(unscoped.find(Campaign, {})).rejects.toThrow(UnscopedQueryError);
  await expect(unscoped.nativeUpdate(Variant, { id: seededA.variantId }, { name: 'x' })).rejects.toThrow(
    /workspace-owned data: query it through a WorkspaceScope/,
  );
});

it('refuses every workspace-owned entity outside a scope (access entities aside)', async () => {
  const em = platform.container.orm.em.fork();
  const owned = [...em.getMetadata()]
    .filter((meta) => meta.properties['workspace' as never] && !meta.embeddable && !meta.virtual)
    .filter((meta) => meta.properties['workspace' as never]!.targetMeta?.className === 'Workspace')
    .sort((x, y) => x.className.localeCompare(y.className));
  const refused: string[] = [];
  const allowed: string[] = [];
  for (const meta of owned) {
    const name = meta.className;
    try {
      await em.count(meta.class, {});
      allowed.push(name);
    } catch (error) {
      if (!(error instanceof UnscopedQueryError)) throw error;
      refused.push(name);
    }
  }
  // The access entities are read to build a scope (a key by its hash, a token's grant, a person's workspaces).
  expect(allowed).toEqual(['ApiKey', 'Membership', 'OAuthGrantBinding']);
  expect(refused).toEqual(expect.arrayContaining(['Brand', 'Campaign', 'CreditLedgerEntry', 'Job', 'Variant']));
  expect(refused.length + allowed.length).toBe(owned.length);
});

it('sees every workspace only when a query or a fork says so', async () => {
  const one = await platform.container.orm.em
    .fork()
    .find(Campaign, { id: { $in: [seededA.campaignId, seededB.campaignId] } }, ACROSS_WORKSPACES);
  const fork = await acrossWorkspaces(platform.container.orm.em).count(Campaign, {
    id: { $in: [seededA.campaignId, seededB.campaignId] },
  });
  expect(one).toHaveLength(2);
  expect(fork).toBe(2);
});
