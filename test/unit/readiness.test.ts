/**
 * What keeps `/readyz` cheap for a load balancer asking every second from several places: one round of probes
 * serves every caller within the cache window, a hung dependency reports "timed out" within the timeout, and
 * a probe still hanging is not started a second time.
 */
import { createReadiness } from '../../src/domain/platform/readiness.ts';

it('serves a burst of callers from one round of probes, and probes again once the window has passed', async () => {
  const calls = { postgres: 0, temporal: 0 };
  const readiness = createReadiness(
    {
      postgres: async () => void calls.postgres++,
      temporal: async () => void calls.temporal++,
    },
    { cacheMs: 50, timeoutMs: 1_000 },
  );
  const burst = await Promise.all(Array.from({ length: 50 }, () => readiness.check()));
  expect(new Set(burst).size).toBe(1);
  expect(burst[0]!.status).toBe('ready');
  expect(calls).toEqual({ postgres: 1, temporal: 1 });

  await new Promise((resolve) => setTimeout(resolve, 60));
  await readiness.check();
  expect(calls).toEqual({ postgres: 2, temporal: 2 });
});

it('reports a hung dependency as timed out, and does not stack a second probe on the hung one', async () => {
  let started = 0;
  let release!: () => void;
  const hung = new Promise<void>((resolve) => (release = resolve));
  const readiness = createReadiness(
    {
      postgres: () => {
        started++;
        return hung;
      },
      media: async () => undefined,
    },
    { cacheMs: 0, timeoutMs: 30 },
  );
  const first = await readiness.check();
  expect(first.status).toBe('unready');
  expect(first.checks.postgres).toMatchObject({ status: 'down', error: 'timed out' });
  expect(first.checks.media).toMatchObject({ status: 'up' });

  const second = await readiness.check();
  expect(second.checks.postgres).toMatchObject({ status: 'down', error: 'timed out' });
  expect(started).toBe(1);

  release();
  await hung;
  const third = await readiness.check();
  expect(third.status).toBe('ready');
  expect(started).toBe(2);
});

it('reports a refused dependency as unreachable without its error text (no addresses in the answer)', async () => {
  const readiness = createReadiness({
    postgres: async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.5:5432');
    },
  });
  const report = await readiness.check();
  expect(report.checks.postgres).toEqual({ status: 'down', latencyMs: expect.any(Number), error: 'unreachable' });
  expect(JSON.stringify(report)).not.toContain('10.0.0.5');
});
