/**
 * Credits under contention, on the real database: many redemptions (and one-shot spends) racing for one
 * balance. Exactly as many succeed as the balance covers, the rest are refused with `insufficient_credits`
 * and leave nothing behind, and the available balance never goes below zero. Also the ways a quote is
 * refused (reused, expired, other arguments), each of which changes nothing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CreditLedgerEntry } from '../../src/domain/credits/credit-ledger-entry.entity.ts';
import { CreditQuote } from '../../src/domain/credits/credit-quote.entity.ts';
import type { PriceLine } from '../../src/domain/credits/price-list.ts';
import { createQuotesService, QUOTE_TTL_MS } from '../../src/domain/credits/quotes.service.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import { acrossWorkspaces, type WorkspaceScope, workspaceScope, actors } from '../../src/domain/shared/scope.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;

const PRICE = 7;
const COVERED = 10;
const ATTEMPTS = 50;
const OPERATION = 'test_race.spend';
const lines: PriceLine[] = [{ step: 'work', credits: PRICE, description: 'one unit of work' }];

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'creditrace' });
});

afterAll(async () => {
  await platform.close();
});

const em = () => acrossWorkspaces(platform.container.orm.em);
const scopeOf = (tenant: Tenant): WorkspaceScope => workspaceScope(em(), tenant.workspaceId, actors.operator);
const balance = (tenant: Tenant) => platform.container.services.credits.balance(em(), tenant.workspaceId);
const entriesOf = (tenant: Tenant) =>
  em().find(CreditLedgerEntry, { workspace: tenant.workspaceId }, { orderBy: { createdAt: 'asc', id: 'asc' } });

/**
 * The lowest balance of `account` after any prefix of the workspace's ledger (in posting order), over all its
 * entries or only those of one reference (a job).
 */
async function lowestRunning(tenant: Tenant, account: 'available' | 'held', reference?: string): Promise<number> {
  const rows = await em()
    .getConnection()
    .execute<{ lowest: string | null }[]>(
      `select min(running) as lowest from (
         select sum(case when to_account = ? then amount when from_account = ? then -amount else 0 end)
                over (order by created_at, id rows between unbounded preceding and current row) as running
         from credit_ledger_entries where workspace_id = ? and (?::text is null or reference = ?)) as prefixes`,
      [account, account, tenant.workspaceId, reference ?? null, reference ?? null],
    );
  return Number(rows[0]?.lowest ?? 0);
}

const lowestRunningAvailable = (tenant: Tenant) => lowestRunning(tenant, 'available');

/** Samples the available balance until `done` settles; returns every value seen. */
function sampleAvailable(tenant: Tenant, done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  return (async () => {
    const seen: number[] = [];
    while (!finished) {
      seen.push((await balance(tenant)).available);
      await sleep(5);
    }
    seen.push((await balance(tenant)).available);
    return seen;
  })();
}

function codesOf(results: PromiseSettledResult<unknown>[]): Record<string, number> {
  const codes: Record<string, number> = {};
  for (const result of results) {
    const code =
      result.status === 'fulfilled' ? 'ok' : String((result.reason as { code?: string }).code ?? result.reason);
    codes[code] = (codes[code] ?? 0) + 1;
  }
  return codes;
}

it('redeems exactly as many of 50 concurrent quotes as the balance covers; the rest are refused and leave nothing', async () => {
  const { quotes } = platform.container.services;
  const tenant = await createTenant(platform.container, { credits: PRICE * COVERED });

  const calls = await Promise.all(
    Array.from({ length: ATTEMPTS }, async () => {
      const reference = newId('job');
      const args = { jobId: reference, what: 'race' };
      const quote = await quotes.quote(scopeOf(tenant), OPERATION, args, lines);
      expect(quote).toMatchObject({ credits: PRICE, sufficient: true });
      return { reference, args, quoteId: quote.id };
    }),
  );
  expect(new Set(calls.map((c) => c.quoteId)).size).toBe(ATTEMPTS);

  const race = Promise.allSettled(
    calls.map((call) =>
      quotes.redeem(scopeOf(tenant), {
        quoteId: call.quoteId,
        operation: OPERATION,
        args: call.args,
        reference: call.reference,
      }),
    ),
  );
  const samples = sampleAvailable(tenant, race);
  const results = await race;

  expect(codesOf(results)).toEqual({ ok: COVERED, insufficient_credits: ATTEMPTS - COVERED });
  for (const result of results) {
    if (result.status === 'fulfilled') expect(result.value.reserved).toBe(PRICE);
    else expect(result.reason).toMatchObject({ details: { required: PRICE, available: expect.any(Number) } });
  }
  expect(await balance(tenant)).toEqual({ available: 0, held: PRICE * COVERED, spent: 0 });
  expect(Math.min(...(await samples))).toBeGreaterThanOrEqual(0);
  expect(await lowestRunningAvailable(tenant)).toBe(0);

  // The ledger: one grant, then exactly one reserve per winner, adding up to the grant.
  const entries = await entriesOf(tenant);
  const reserves = entries.filter((e) => e.kind === 'reserve');
  expect(entries.filter((e) => e.kind === 'grant').map((e) => e.amount)).toEqual([PRICE * COVERED]);
  expect(entries).toHaveLength(1 + COVERED);
  expect(reserves.reduce((sum, e) => sum + e.amount, 0)).toBe(PRICE * COVERED);

  const quoteRows = new Map(
    (await em().find(CreditQuote, { id: { $in: calls.map((c) => c.quoteId) } })).map((q) => [q.id, q]),
  );
  const winners = calls.filter((_, i) => results[i]!.status === 'fulfilled');
  const losers = calls.filter((_, i) => results[i]!.status === 'rejected');
  expect(reserves.map((e) => e.reference).sort()).toEqual(winners.map((c) => c.reference).sort());
  expect(reserves.map((e) => e.idempotencyKey).sort()).toEqual(winners.map((c) => `quote:${c.quoteId}`).sort());
  for (const winner of winners) {
    expect(quoteRows.get(winner.quoteId)).toMatchObject({ reference: winner.reference, usedAt: expect.any(Date) });
  }
  // A refused redemption leaves no entry behind and gives its quote back (unused, usable once credits arrive).
  const loserKeys = new Set(losers.map((c) => `quote:${c.quoteId}`));
  const loserRefs = new Set(losers.map((c) => c.reference));
  expect(entries.filter((e) => loserKeys.has(e.idempotencyKey) || loserRefs.has(e.reference ?? ''))).toEqual([]);
  for (const loser of losers) expect(quoteRows.get(loser.quoteId)).toMatchObject({ usedAt: null, reference: null });

  // ...and indeed usable: after a top-up for exactly one more, one of the refused quotes goes through.
  await platform.container.services.credits.grant(em(), {
    workspaceId: tenant.workspaceId,
    amount: PRICE,
    idempotencyKey: `top-up:${tenant.workspaceId}`,
    actor: 'operator',
  });
  const retried = losers[0]!;
  await expect(
    quotes.redeem(scopeOf(tenant), {
      quoteId: retried.quoteId,
      operation: OPERATION,
      args: retried.args,
      reference: retried.reference,
    }),
  ).resolves.toMatchObject({ reserved: PRICE });
  expect(await balance(tenant)).toEqual({ available: 0, held: PRICE * (COVERED + 1), spent: 0 });
});

it('lets only one of 50 concurrent redemptions of the same quote through', async () => {
  const { quotes } = platform.container.services;
  const tenant = await createTenant(platform.container, { credits: PRICE * ATTEMPTS });
  const args = { what: 'one quote, many callers' };
  const quote = await quotes.quote(scopeOf(tenant), OPERATION, args, lines);
  const references = Array.from({ length: ATTEMPTS }, () => newId('job'));
  const results = await Promise.allSettled(
    references.map((reference) =>
      quotes.redeem(scopeOf(tenant), { quoteId: quote.id, operation: OPERATION, args, reference }),
    ),
  );
  expect(codesOf(results)).toEqual({ ok: 1, conflict: ATTEMPTS - 1 });
  const winner = references[results.findIndex((r) => r.status === 'fulfilled')]!;
  const reserves = (await entriesOf(tenant)).filter((e) => e.kind === 'reserve');
  expect(reserves.map((e) => [e.reference, e.amount, e.idempotencyKey])).toEqual([
    [winner, PRICE, `quote:${quote.id}`],
  ]);
  expect(await balance(tenant)).toEqual({ available: PRICE * (ATTEMPTS - 1), held: PRICE, spent: 0 });
});

it('spends exactly as many of 50 concurrent one-shot spends as the balance covers', async () => {
  const { credits } = platform.container.services;
  const tenant = await createTenant(platform.container, { credits: PRICE * COVERED });
  const keys = Array.from({ length: ATTEMPTS }, (_, i) => `spend:${tenant.workspaceId}:${i}`);
  const race = Promise.allSettled(
    keys.map((idempotencyKey) =>
      credits.spend(em(), {
        workspaceId: tenant.workspaceId,
        amount: PRICE,
        idempotencyKey,
        reference: idempotencyKey,
        actor: 'test:creditrace',
      }),
    ),
  );
  const samples = sampleAvailable(tenant, race);
  const results = await race;

  expect(codesOf(results)).toEqual({ ok: COVERED, insufficient_credits: ATTEMPTS - COVERED });
  for (const result of results) if (result.status === 'fulfilled') expect(result.value.replayed).toBe(false);
  expect(await balance(tenant)).toEqual({ available: 0, held: 0, spent: PRICE * COVERED });
  expect(Math.min(...(await samples))).toBeGreaterThanOrEqual(0);
  expect(await lowestRunningAvailable(tenant)).toBe(0);

  const entries = await entriesOf(tenant);
  const spends = entries.filter((e) => e.kind === 'spend');
  expect(entries).toHaveLength(1 + COVERED);
  expect(spends.reduce((sum, e) => sum + e.amount, 0)).toBe(PRICE * COVERED);
  const winners = keys.filter((_, i) => results[i]!.status === 'fulfilled');
  expect(spends.map((e) => e.idempotencyKey).sort()).toEqual([...winners].sort());
});

it("never captures more than a job holds while new reservations race for the workspace's balance", async () => {
  // Captures lock only their job's hold and reservations lock the workspace: racing both at once must keep
  // each balance exact and never below zero.
  const { credits } = platform.container.services;
  const tenant = await createTenant(platform.container, { credits: 100 });
  const running = newId('job');
  const post = { workspaceId: tenant.workspaceId, actor: 'test:creditrace' };
  await credits.reserve(em(), { ...post, amount: 50, idempotencyKey: `${running}:reserve`, reference: running });

  const captures = Array.from({ length: 20 }, (_, i) =>
    credits.capture(em(), { ...post, amount: 5, idempotencyKey: `${running}:capture:${i}`, reference: running }),
  );
  const others = Array.from({ length: 10 }, () => newId('job'));
  const reserves = others.map((job) =>
    credits.reserve(em(), { ...post, amount: 10, idempotencyKey: `${job}:reserve`, reference: job }),
  );
  const [captured, reserved] = await Promise.all([Promise.allSettled(captures), Promise.allSettled(reserves)]);

  expect(codesOf(captured)).toEqual({ ok: 10, conflict: 10 });
  expect(codesOf(reserved)).toEqual({ ok: 5, insufficient_credits: 5 });
  expect(await credits.heldFor(em(), tenant.workspaceId, running)).toBe(0);
  expect(await lowestRunning(tenant, 'held', running)).toBe(0);
  expect(await lowestRunningAvailable(tenant)).toBe(0);
  expect(await balance(tenant)).toEqual({ available: 0, held: 50, spent: 50 });
});

describe('a quote that cannot be redeemed is refused and changes nothing', () => {
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await createTenant(platform.container, { credits: 100 });
  });

  async function snapshot() {
    const entries = await entriesOf(tenant);
    return { balance: await balance(tenant), entries: entries.map((e) => e.id) };
  }

  it('refuses a quote that was already used', async () => {
    const { quotes } = platform.container.services;
    const args = { what: 'reuse' };
    const quote = await quotes.quote(scopeOf(tenant), OPERATION, args, lines);
    const reference = newId('job');
    await quotes.redeem(scopeOf(tenant), { quoteId: quote.id, operation: OPERATION, args, reference });
    const before = await snapshot();

    await expect(
      quotes.redeem(scopeOf(tenant), { quoteId: quote.id, operation: OPERATION, args, reference: newId('job') }),
    ).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/already used/) });
    // Even when the same job id is given again.
    await expect(
      quotes.redeem(scopeOf(tenant), { quoteId: quote.id, operation: OPERATION, args, reference }),
    ).rejects.toMatchObject({ code: 'conflict' });

    expect(await snapshot()).toEqual(before);
    expect(await em().findOneOrFail(CreditQuote, { id: quote.id })).toMatchObject({ reference });
  });

  it('refuses an expired quote (by the clock, and by its expires_at in the database)', async () => {
    const { credits } = platform.container.services;
    let clock = new Date('2030-01-01T00:00:00Z');
    const quotes = createQuotesService({ credits, now: () => clock });
    const args = { what: 'expiry' };
    const quote = await quotes.quote(scopeOf(tenant), OPERATION, args, lines);
    expect(quote.expiresAt).toBe(new Date(clock.getTime() + QUOTE_TTL_MS).toISOString());
    const before = await snapshot();

    clock = new Date(clock.getTime() + QUOTE_TTL_MS);
    await expect(
      quotes.redeem(scopeOf(tenant), { quoteId: quote.id, operation: OPERATION, args, reference: newId('job') }),
    ).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/expired/) });
    expect(await snapshot()).toEqual(before);
    expect(await em().findOneOrFail(CreditQuote, { id: quote.id })).toMatchObject({ usedAt: null, reference: null });

    // One millisecond before its expiry, the same quote still works (so the refusal above was the expiry).
    clock = new Date(clock.getTime() - 1);
    await expect(
      quotes.redeem(scopeOf(tenant), { quoteId: quote.id, operation: OPERATION, args, reference: newId('job') }),
    ).resolves.toMatchObject({ reserved: PRICE });

    // The platform's own service (real clock) refuses a quote whose expires_at has passed.
    const real = platform.container.services.quotes;
    const stale = await real.quote(scopeOf(tenant), OPERATION, args, lines);
    await em().nativeUpdate(CreditQuote, { id: stale.id }, { expiresAt: new Date(Date.now() - 1_000) });
    const beforeStale = await snapshot();
    await expect(
      real.redeem(scopeOf(tenant), { quoteId: stale.id, operation: OPERATION, args, reference: newId('job') }),
    ).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/expired/) });
    expect(await snapshot()).toEqual(beforeStale);
  });

  it('refuses a quote made for other arguments or another operation', async () => {
    const { quotes } = platform.container.services;
    const args = { what: 'arguments', count: 2, nested: { a: 1, b: [1, 2] } };
    const quote = await quotes.quote(scopeOf(tenant), OPERATION, args, lines);
    const before = await snapshot();
    const redeem = (input: { operation?: string; args: Record<string, unknown> }) =>
      quotes.redeem(scopeOf(tenant), {
        quoteId: quote.id,
        operation: input.operation ?? OPERATION,
        args: input.args,
        reference: newId('job'),
      });

    await expect(redeem({ args: { ...args, count: 3 } })).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringMatching(/arguments differ/),
    });
    await expect(redeem({ args: { ...args, nested: { a: 1, b: [2, 1] } } })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(redeem({ args: { ...args, extra: true } })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(redeem({ operation: 'test_race.other', args })).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringMatching(/is for test_race\.spend/),
    });
    // Another workspace's quote does not exist for this one.
    const stranger = await createTenant(platform.container, { credits: 100 });
    await expect(
      quotes.redeem(scopeOf(stranger), { quoteId: quote.id, operation: OPERATION, args, reference: newId('job') }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(await balance(stranger)).toEqual({ available: 100, held: 0, spent: 0 });

    expect(await snapshot()).toEqual(before);
    expect(await em().findOneOrFail(CreditQuote, { id: quote.id })).toMatchObject({ usedAt: null, reference: null });
    // The exact arguments (keys in another order, quoteId ignored) still redeem it.
    await expect(
      redeem({ args: { nested: { b: [1, 2], a: 1 }, count: 2, what: 'arguments', quoteId: quote.id } }),
    ).resolves.toMatchObject({ reserved: PRICE });
  });
});
