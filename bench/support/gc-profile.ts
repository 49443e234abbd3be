/**
 * What a process's garbage collector did over an interval, from a `v8.GCProfiler` recording: how many
 * young-generation (scavenge) and full (mark-compact) collections ran and how long they held the thread, and
 * how many bytes the program allocated and promoted to the old generation meanwhile. Benchmarks divide these by
 * the calls of the interval: a latency tail below saturation is often these pauses, and the bytes allocated
 * and promoted per call are what sets how often they come (docs/benchmarks.md, "Garbage collection per call").
 */
import type { GCProfilerResult } from 'node:v8';

export interface GcSummary {
  scavenges: number;
  scavengeMs: number;
  longestScavengeMs: number;
  fullCollections: number;
  fullCollectionMs: number;
  longestFullCollectionMs: number;
  /** Bytes allocated between collections (the heap's growth from the end of one to the start of the next). */
  allocatedBytes: number;
  /** Bytes the scavenges moved to the old generation: objects that outlived two young collections. */
  promotedBytes: number;
}

type Statistic = GCProfilerResult['statistics'][number];

const oldGenerationSpaces = new Set(['old_space', 'code_space', 'large_object_space', 'code_large_object_space']);

function oldGenerationUsed(heap: Statistic['beforeGC']): number {
  let used = 0;
  for (const space of heap.heapSpaceStatistics)
    if (oldGenerationSpaces.has(space.spaceName)) used += space.spaceUsedSize;
  return used;
}

export function summariseGcProfile(result: GCProfilerResult): GcSummary {
  const summary: GcSummary = {
    scavenges: 0,
    scavengeMs: 0,
    longestScavengeMs: 0,
    fullCollections: 0,
    fullCollectionMs: 0,
    longestFullCollectionMs: 0,
    allocatedBytes: 0,
    promotedBytes: 0,
  };
  let usedAfterPrevious: number | null = null;
  for (const statistic of result.statistics) {
    const ms = statistic.cost / 1000;
    const usedBefore = statistic.beforeGC.heapStatistics.usedHeapSize;
    // The first collection's start is not known: its allocation is left out rather than guessed.
    if (usedAfterPrevious !== null) summary.allocatedBytes += Math.max(0, usedBefore - usedAfterPrevious);
    usedAfterPrevious = statistic.afterGC.heapStatistics.usedHeapSize;
    if (statistic.gcType === 'Scavenge' || statistic.gcType === 'MinorMarkSweep') {
      summary.scavenges += 1;
      summary.scavengeMs += ms;
      summary.longestScavengeMs = Math.max(summary.longestScavengeMs, ms);
      summary.promotedBytes += Math.max(
        0,
        oldGenerationUsed(statistic.afterGC) - oldGenerationUsed(statistic.beforeGC),
      );
    } else if (statistic.gcType === 'MarkSweepCompact') {
      summary.fullCollections += 1;
      summary.fullCollectionMs += ms;
      summary.longestFullCollectionMs = Math.max(summary.longestFullCollectionMs, ms);
    }
  }
  return summary;
}
