/**
 * The tool server's rate limit: at most 120 requests of one token in ANY 60-second window, across every API
 * instance; 429 with Retry-After equal to the RateLimit header's reset and a JSON-RPC error that says when to
 * retry; tokens limited independently; refusals answered in-process while they last.
 *
 * The window's exactness is checked on the real statement with explicit times (the limiter's `now` option), so
 * minutes of schedule run in milliseconds: a model of the rule ("accepted when the window holds at most
 * limit − cost earlier acceptances") must agree with every decision, on every schedule fast-check finds.
 */
import http from 'node:http';
import fc from 'fast-check';
import { createContainer, type Container } from '../../src/container.ts';
import { nativePool } from '../../src/db/prepared.ts';
import { createRateLimiter, type RateLimitPolicy } from '../../src/domain/rate-limits/rate-limiter.ts';
import { createHttpApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/logger.ts';
import { createKey, createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
let tenant: Tenant;
let keySequence = 0;
const freshKey = (label: string) => `${label}-${Date.now()}-${(keySequence += 1)}`;

async function call(key: string, base = platform.urls.mcp) {
  const response = await testFetch(base, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  const body = (await response.json()) as any;
  return { status: response.status, headers: response.headers, body };
}

/** A limiter on the test database whose clock the test sets. */
function limiterAt(start: number) {
  let now = start;
  const limiter = createRateLimiter(platform.container.orm, { now: () => new Date(now) });
  return {
    limiter,
    at: (ms: number) => {
      now = ms;
    },
  };
}

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'ratelimit' });
  tenant = await createTenant(platform.container);
});

afterAll(async () => {
  await platform.close();
  await closeTestFetch();
});

it('accepts exactly 120 of a burst and refuses the rest with a 429 whose Retry-After is the RateLimit reset', async () => {
  const started = performance.now();
  const burst = await Promise.all(Array.from({ length: 140 }, () => call(tenant.apiKey)));
  // The whole burst lies inside one minute, so exactly the limit passes: no refill on top of it.
  expect(performance.now() - started).toBeLessThan(60_000);
  const accepted = burst.filter((r) => r.status === 200);
  const refused = burst.filter((r) => r.status === 429);
  expect(accepted).toHaveLength(120);
  expect(refused).toHaveLength(20);

  const ok = accepted[0]!;
  expect(ok.headers.get('ratelimit-policy')).toBe('"tool-server";q=120;w=60');
  expect(ok.headers.get('ratelimit')).toMatch(/^"tool-server";r=\d+;t=\d+$/);
  for (const response of refused) {
    const retryAfter = Number(response.headers.get('retry-after'));
    // The first of the 120 leaves the window within a minute of the burst.
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(response.headers.get('ratelimit')).toBe(`"tool-server";r=0;t=${retryAfter}`);
    expect(response.body.error).toEqual({
      code: -32000,
      message: `Rate limit exceeded: 120 requests per 60 seconds per token. Retry in ${retryAfter} second(s).`,
      data: { code: 'rate_limited', retryAfterSeconds: retryAfter },
    });
  }

  // Another token of the same workspace has its own budget.
  const other = await createKey(platform.container, tenant, 'editor');
  expect((await call(other)).status).toBe(200);
});

it('holds the 120 per minute in any window: a burst, then 5 per second, gets nothing more until the burst is a minute old', async () => {
  const policy: RateLimitPolicy = { name: 'tool-server', limit: 120, windowSeconds: 60 };
  const start = Date.parse('2026-11-25T10:00:00.000Z');
  const { limiter, at } = limiterAt(start);
  const key = freshKey('burst-then-steady');
  const acceptedAt: number[] = [];
  const offer = async (ms: number) => {
    at(start + ms);
    const decision = await limiter.consume(policy, key);
    if (decision.allowed) acceptedAt.push(ms);
    return decision;
  };
  for (let i = 0; i < 120; i += 1) expect((await offer(0)).allowed).toBe(true);
  // The probe that found ~240 a minute: 5 per second after the burst.
  for (let ms = 200; ms < 60_000; ms += 200) {
    const decision = await offer(ms);
    expect(decision).toMatchObject({ allowed: false, remaining: 0 });
    expect(decision.retryAfterSeconds).toBe(Math.ceil((60_000 - ms) / 1000));
    expect(decision.resetSeconds).toBe(decision.retryAfterSeconds);
  }
  expect(acceptedAt).toHaveLength(120);
  // At the minute the burst leaves the window, and the steady 5/s fills it again.
  for (let ms = 60_000; ms < 90_000; ms += 200) await offer(ms);
  for (const end of acceptedAt) {
    expect(acceptedAt.filter((t) => t > end - 60_000 && t <= end).length).toBeLessThanOrEqual(120);
  }
  expect(acceptedAt.length).toBe(120 + 120);
});

it('never refuses a client that waits half a second between requests', async () => {
  const policy: RateLimitPolicy = { name: 'tool-server', limit: 120, windowSeconds: 60 };
  const start = Date.parse('2026-11-25T11:00:00.000Z');
  const { limiter, at } = limiterAt(start);
  const key = freshKey('steady');
  for (let i = 0; i < 400; i += 1) {
    at(start + i * 500);
    const decision = await limiter.consume(policy, key);
    expect(decision.allowed).toBe(true);
    // After the first minute the window always holds 119 earlier requests plus this one.
    if (i >= 119) expect(decision.remaining).toBe(0);
  }
});

it('keeps only the times still inside the window, however high the limit', async () => {
  // A high limit must not make a key's log grow with its history: every request rewrites the log, so a log of
  // thousands of old times (kept until they were N) made each request cost more than the one before.
  const policy: RateLimitPolicy = { name: 'high-limit', limit: 100_000, windowSeconds: 1 };
  const start = Date.parse('2026-11-25T13:00:00.000Z');
  const { limiter, at } = limiterAt(start);
  const key = freshKey('history');
  const stored = async () => {
    const [row] = await platform.container.orm.em
      .getConnection()
      .execute<{ stamps: number }[]>('select cardinality(stamps) as stamps from rate_limit_log where key = ?', [
        `${policy.name}:${key}`,
      ]);
    return Number(row!.stamps);
  };
  for (let second = 0; second < 5; second += 1) {
    for (let i = 0; i < 20; i += 1) {
      at(start + second * 1_000 + i * 10);
      expect((await limiter.consume(policy, key)).allowed).toBe(true);
    }
  }
  // The last second's 20 times are inside the window (4.00 s … 4.19 s at 4.19 s); the 80 before have left it.
  expect(await stored()).toBe(20);
  at(start + 10_000);
  const decision = await limiter.consume(policy, key);
  expect(decision.remaining).toBe(policy.limit - 1);
  expect(await stored()).toBe(1);
});

it('agrees with the sliding-window rule on every schedule, across two instances and with batches', async () => {
  const policy: RateLimitPolicy = { name: 'model', limit: 5, windowSeconds: 10 };
  const windowMs = policy.windowSeconds * 1000;
  const step = fc.record({
    gapMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 4_000 }), fc.constantFrom(9_999, 10_000, 10_001)),
    cost: fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 5 }) }),
    instance: fc.integer({ min: 0, max: 1 }),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
      const start = Date.parse('2026-11-25T12:00:00.000Z');
      let now = start;
      // Two instances: each its own limiter and in-process refusals, one shared table.
      const instances = [0, 1].map(() => createRateLimiter(platform.container.orm, { now: () => new Date(now) }));
      const key = freshKey('model');
      const accepted: number[] = [];
      for (const { gapMs, cost, instance } of steps) {
        now += gapMs;
        const decision = await instances[instance]!.consume(policy, key, cost);
        const inWindow = accepted.filter((t) => t > now - windowMs);
        const expectAllowed = inWindow.length + cost <= policy.limit;
        expect(decision.allowed).toBe(expectAllowed);
        if (expectAllowed) {
          for (let i = 0; i < cost; i += 1) accepted.push(now);
          expect(decision.remaining).toBe(policy.limit - inWindow.length - cost);
        } else {
          // Wait until `cost` units are free: the (limit − cost + 1)-th most recent acceptance leaves the window.
          const blocking = inWindow[inWindow.length - (policy.limit - cost + 1)]!;
          expect(decision.retryAfterSeconds).toBe(Math.max(1, Math.ceil((blocking + windowMs - now) / 1000)));
          expect(decision.resetSeconds).toBe(decision.retryAfterSeconds);
          expect(decision.remaining).toBe(policy.limit - inWindow.length);
        }
        const all = accepted.filter((t) => t > now - windowMs);
        expect(all.length).toBeLessThanOrEqual(policy.limit);
      }
    }),
    { numRuns: 40 },
  );
});

it('shares the limit between API instances', async () => {
  // A second API instance on the same database: requests to either count against one budget.
  const config = { ...platform.config };
  const second: Container = await createContainer(config, {
    log: createLogger({ level: 'silent', name: 'second' }),
    migrate: false,
  });
  const { listener, close } = createHttpApp(second);
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const secondMcp = `http://app.localhost:${port}/api/mcp`;
  try {
    const key = await createKey(platform.container, tenant, 'viewer', 'shared');
    let accepted = 0;
    const started = Date.now();
    for (let i = 0; i < 130; i += 1) {
      const { status } = await call(key, i % 2 === 0 ? platform.urls.mcp : secondMcp);
      if (status === 200) accepted += 1;
      else expect(status).toBe(429);
    }
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(accepted).toBe(120);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await close();
    await second.close();
  }
});

it('answers a refused key in-process until the shared state would let it pass, then asks again', async () => {
  const limiter = platform.container.services.rateLimiter;
  // Two per two seconds, on the real clock: two pass, then nothing until the first is two seconds old.
  const policy = { name: 'local-refusal-test', limit: 2, windowSeconds: 2 };
  const key = freshKey('local');
  const firstAt = Date.now();
  expect((await limiter.consume(policy, key)).allowed).toBe(true);
  expect((await limiter.consume(policy, key)).allowed).toBe(true);
  const first = await limiter.consume(policy, key);
  expect(first).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 2, resetSeconds: 2 });
  expect(await limiter.blocked(policy, key)).toEqual({ blocked: true, retryAfterSeconds: 2 });

  // Count the statements the limiter sends while the key is refused: none.
  const pool = await nativePool(platform.container.orm);
  const query = pool.query.bind(pool);
  let statements = 0;
  pool.query = ((...args: Parameters<typeof pool.query>) => {
    statements += 1;
    return query(...args);
  }) as typeof pool.query;
  try {
    for (let i = 0; i < 20; i += 1) {
      const refused = await limiter.consume(policy, key);
      expect(refused).toMatchObject({ allowed: false, remaining: 0 });
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(2);
    }
    expect(statements).toBe(0);
    // Once the first acceptance has left the window, the shared state decides again (and lets the key through).
    // A deliberate pause, not a wait: the limiter runs on the real clock here, so the window must really pass.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, firstAt + 2_100 - Date.now())));
    expect((await limiter.consume(policy, key)).allowed).toBe(true);
    expect(statements).toBe(1);
  } finally {
    pool.query = query;
  }
});

it('peeks without counting, and housekeeping drops only logs whose window has passed', async () => {
  const policy = { name: 'peek-test', limit: 3, windowSeconds: 1 };
  const key = freshKey('peek');
  const limiter = platform.container.services.rateLimiter;
  for (let i = 0; i < 5; i += 1)
    expect(await limiter.blocked(policy, key)).toEqual({ blocked: false, retryAfterSeconds: 0 });
  for (let i = 0; i < 3; i += 1) expect((await limiter.consume(policy, key)).allowed).toBe(true);
  expect((await limiter.blocked(policy, key)).blocked).toBe(true);

  const longKey = freshKey('long');
  await limiter.consume({ name: 'peek-test-long', limit: 3, windowSeconds: 3600 }, longKey);
  // A deliberate pause, not a wait: the one-second window must really pass (the limiter is on the real clock)
  // for its log to be prunable, while the hour-long one's is not.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  expect(await limiter.prune()).toBeGreaterThanOrEqual(1);
  const rows = await platform.container.orm.em
    .getConnection()
    .execute<{ key: string }[]>('select key from rate_limit_log where key in (?, ?)', [
      `peek-test:${key}`,
      `peek-test-long:${longKey}`,
    ]);
  expect(rows.map((row) => row.key)).toEqual([`peek-test-long:${longKey}`]);
});
