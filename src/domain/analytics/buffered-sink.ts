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
  let draining = false;
  /** How many of the queued events a flush asked for must still be written before the drain may stop. */
  let owed = 0;
  let closed = false;

  function schedule() {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = null;
      void flush();
    }, flushMs);
    timer.unref();
  }

  /**
   * Writes batches while a flush is owed, a full batch is waiting, or the sink is closing. It stops at a
   * partial batch otherwise: the events that arrived during a write wait for the timer and go out together,
   * instead of trickling out a few per write, each write paying a round trip for a handful of rows.
   */
  function drain(): Promise<void> {
    if (draining) return writing;
    draining = true;
    writing = (async () => {
      try {
        while (queue.length > 0 && (owed > 0 || queue.length >= maxBatch || closed)) {
          const batch = queue.slice(0, maxBatch);
          try {
            await inner.record(batch);
          } catch (error) {
            options.log.warn({ err: error, queued: queue.length }, 'site events not written yet; retrying later');
            return;
          }
          queue = queue.slice(batch.length);
          owed = Math.max(0, owed - batch.length);
        }
      } finally {
        draining = false;
        if (queue.length > 0) schedule();
      }
    })();
    return writing;
  }

  /** Writes everything queued now (and what fills whole batches meanwhile). */
  function flush(): Promise<void> {
    owed = queue.length;
    return drain();
  }

  return {
    async record(events) {
      queue.push(...events);
      if (queue.length > maxQueued) {
        const dropped = queue.length - maxQueued;
        queue = queue.slice(dropped);
        owed = Math.max(0, owed - dropped);
        options.log.error({ dropped }, 'site event queue full: oldest server-side events dropped');
      }
      if (queue.length >= maxBatch) void drain();
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
