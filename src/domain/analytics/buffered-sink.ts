/**
 * Server-side events emitted while serving pages (markdown impressions) must never slow serving down, so
 * they are queued in memory and written in batches: at most `flushMs` later, or at once when `maxBatch` are
 * waiting. A graceful stop flushes what is queued; a crash can lose at most one flush interval of these
 * server-side impressions (beacons from browsers are written before they are acknowledged, and are not
 * buffered here). A failed write is retried on the next flush; the queue is bounded, dropping the oldest.
 */
import type { Logger } from '../../logger.ts';
import type { SiteEvent, SiteEventSink } from './site-events.ts';

export interface BufferedSink extends SiteEventSink {
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function createBufferedSink(
  inner: SiteEventSink,
  options: { log: Logger; flushMs?: number; maxBatch?: number; maxQueued?: number },
): BufferedSink {
  const flushMs = options.flushMs ?? 50;
  const maxBatch = options.maxBatch ?? 500;
  const maxQueued = options.maxQueued ?? 100_000;
  let queue: SiteEvent[] = [];
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();
  let closed = false;

  function schedule() {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = null;
      void flush();
    }, flushMs);
    timer.unref();
  }

  function flush(): Promise<void> {
    writing = writing.then(async () => {
      while (queue.length > 0) {
        const batch = queue.slice(0, maxBatch);
        try {
          await inner.record(batch);
          queue = queue.slice(batch.length);
        } catch (error) {
          options.log.warn({ err: error, queued: queue.length }, 'site events not written yet; retrying later');
          schedule();
          return;
        }
      }
    });
    return writing;
  }

  return {
    async record(events) {
      queue.push(...events);
      if (queue.length > maxQueued) {
        const dropped = queue.length - maxQueued;
        queue = queue.slice(dropped);
        options.log.error({ dropped }, 'site event queue full: oldest server-side events dropped');
      }
      if (queue.length >= maxBatch) void flush();
      else schedule();
    },
    flush,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await flush();
    },
  };
}
