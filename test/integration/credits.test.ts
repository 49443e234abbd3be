/** The credit ledger on the real database: derived balances, idempotency, append-only rows. */
import { CreditLedgerEntry } from '../../src/domain/credits/credit-ledger-entry.entity.ts';
import { createTenant } from '../support/factories.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'credits' });
});

afterAll(async () => {
  await platform.close();
});

it('derives balances from double-entry postings and replays idempotent ones', async () => {
  const { credits } = platform.container.services;
  const tenant = await createTenant(platform.container);
  const em = () => acrossWorkspaces(platform.container.orm.em);
  const base = { workspaceId: tenant.workspaceId, actor: 'test' };
  await credits.grant(em(), { ...base, amount: 100, idempotencyKey: 'g1' });
  await credits.reserve(em(), { ...base, amount: 30, idempotencyKey: 'r1', reference: 'job_a' });
  await credits.capture(em(), { ...base, amount: 10, idempotencyKey: 'c1', reference: 'job_a' });
  await credits.spend(em(), { ...base, amount: 5, idempotencyKey: 's1' });
  expect(await credits.balance(em(), tenant.workspaceId)).toEqual({ available: 65, held: 20, spent: 15 });
  const released = await credits.releaseRemaining(em(), { ...base, idempotencyKey: 'rel1', reference: 'job_a' });
  expect(released?.entry.amount).toBe(20);
  expect(await credits.releaseRemaining(em(), { ...base, idempotencyKey: 'rel1', reference: 'job_a' })).toMatchObject({
    replayed: true,
  });
  expect(await credits.releaseRemaining(em(), { ...base, idempotencyKey: 'rel2', reference: 'job_a' })).toBeNull();
  expect(await credits.balance(em(), tenant.workspaceId)).toEqual({ available: 85, held: 0, spent: 15 });

  const replay = await credits.grant(em(), { ...base, amount: 100, idempotencyKey: 'g1' });
  expect(replay.replayed).toBe(true);
  await expect(credits.grant(em(), { ...base, amount: 99, idempotencyKey: 'g1' })).rejects.toMatchObject({
    code: 'conflict',
  });
  await expect(credits.spend(em(), { ...base, amount: 86, idempotencyKey: 's2' })).rejects.toMatchObject({
    code: 'insufficient_credits',
    details: { required: 86, available: 85 },
  });
  await expect(
    credits.capture(em(), { ...base, amount: 1, idempotencyKey: 'c2', reference: 'job_a' }),
  ).rejects.toMatchObject({
    code: 'conflict',
  });
  expect(await credits.balance(em(), tenant.workspaceId)).toEqual({ available: 85, held: 0, spent: 15 });

  // The sum over all accounts is zero: every credit that is anywhere came from a grant.
  const rows = await em().find(CreditLedgerEntry, { workspace: tenant.workspaceId });
  const net: Record<string, number> = {};
  for (const row of rows) {
    net[row.fromAccount] = (net[row.fromAccount] ?? 0) - row.amount;
    net[row.toAccount] = (net[row.toAccount] ?? 0) + row.amount;
  }
  expect(Object.values(net).reduce((a, b) => a + b, 0)).toBe(0);
});

it('refuses to update or delete ledger rows at the database level', async () => {
  const tenant = await createTenant(platform.container, { credits: 5 });
  const connection = acrossWorkspaces(platform.container.orm.em).getConnection();
  await expect(
    connection.execute('update credit_ledger_entries set amount = 500 where workspace_id = ?', [tenant.workspaceId]),
  ).rejects.toThrow(/append-only/);
  await expect(
    connection.execute('delete from credit_ledger_entries where workspace_id = ?', [tenant.workspaceId]),
  ).rejects.toThrow(/append-only/);
  expect(
    await platform.container.services.credits.balance(acrossWorkspaces(platform.container.orm.em), tenant.workspaceId),
  ).toMatchObject({ available: 5 });
});
