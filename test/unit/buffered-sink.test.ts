/**
 * The buffered sink for server-minted events (markdown impressions, concierge questions): events reach the
 * inner sink exactly once and in order, in batches that fill up under steady traffic rather than trickling
 * out a few per write, and a stop or a flush writes everything queued.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createBufferedSink } from '../../src/domain/analytics/buffered-sink.ts';
import type { SiteEvent, SiteEventSink } from '../../src/domain/analytics/site-events.ts';
import { createLogger } from '../../src/logger.ts';
import { pollUntil } from '../support/poll.ts';

const log = createLogger({ level: 'silent', name: 'test' });

function event(i: number): SiteEvent {
  return {
    eventId: `evt-${i}`,
    workspaceId: 'ws_1',
    type: 'impression',
    occurredAt: new Date(0),
    sessionId: null,
  };
}

/** An inner sink whose writes take `writeMs`, recording every batch it was given. */
function slowSink(writeMs: number, failFirst = 0): SiteEventSink & { batches: string[][] } {
  const batches: string[][] = [];
  let failures = failFirst;
  return {
    batches,
    async record(events) {
      await sleep(writeMs);
      if (failures > 0) {
        failures -= 1;
        throw new Error('database unavailable');
      }
      batches.push(events.map((e) => e.eventId));
    },
  };
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `evt-${i}`);

/** Waits until `check` holds (timers may run late on a loaded machine), failing after `timeoutMs`. */
async function eventually(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  await pollUntil(check, Boolean, { timeoutMs, intervalMs: 5, timeoutMessage: `timed out waiting for ${what}` });
}

it('writes full batches under steady traffic instead of a few events per write', async () => {
  const inner = slowSink(5);
  const flushMs = 30;
  const sink = createBufferedSink(inner, { log, flushMs, maxBatch: 10 });
  const started = performance.now();
  for (let i = 0; i < 200; i += 1) {
    await sink.record([event(i)]);
    await sleep(1);
  }
  await sink.close();
  const elapsed = performance.now() - started;
  expect(inner.batches.flat()).toEqual(ids(200));
  // Batches are whole (10) except the one a flush interval ends with, and the last: at most one small write per
  // interval elapsed (however slow the machine), never a run of small writes chasing the traffic, one per
  // write's duration, as a drain that kept going would make.
  const small = inner.batches.filter((batch) => batch.length < 10);
  expect(small.length).toBeLessThanOrEqual(Math.ceil(elapsed / flushMs) + 2);
});

it('writes a partial batch after flushMs, and on close whatever is left', async () => {
  const inner = slowSink(1);
  const sink = createBufferedSink(inner, { log, flushMs: 20, maxBatch: 100 });
  await sink.record([event(0), event(1), event(2)]);
  expect(inner.batches).toEqual([]);
  await eventually(() => inner.batches.length > 0, 'the timed flush');
  expect(inner.batches).toEqual([['evt-0', 'evt-1', 'evt-2']]);
  await sink.record([event(3)]);
  await sink.close();
  expect(inner.batches.flat()).toEqual(ids(4));
});

it('flush writes everything queued at once', async () => {
  const inner = slowSink(1);
  const sink = createBufferedSink(inner, { log, flushMs: 10_000, maxBatch: 4 });
  await sink.record([0, 1, 2, 3, 4, 5].map(event));
  await sink.flush();
  expect(inner.batches.flat()).toEqual(ids(6));
  await sink.close();
});

it('keeps events through failed writes and writes each once when the database is back', async () => {
  const inner = slowSink(1, 2);
  const sink = createBufferedSink(inner, { log, flushMs: 10, maxBatch: 5 });
  await sink.record([0, 1, 2, 3, 4, 5, 6].map(event));
  await eventually(() => inner.batches.flat().length >= 7, 'the retried writes');
  expect(inner.batches.flat()).toEqual(ids(7));
  await sink.close();
  expect(inner.batches.flat()).toEqual(ids(7));
});
