/**
 * Where the bytes of a V8 sampling heap profile (`.heapprofile`) were allocated: by allocating function and
 * by origin (our code, each npm package, Node internals), each with the stack of callers that leads to it
 * from our code, so a benchmark can name what allocates what outlives the young generation.
 */
import fs from 'node:fs/promises';
import { originOf } from './cpu-profile-summary.ts';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/** Prints the allocation sites that hold most of the sampled bytes, per call of the profiled case. */
export async function printHeapProfile(file: string, calls: number, title: string, top = 25): Promise<void> {
  const { head } = JSON.parse(await fs.readFile(file, 'utf8')) as { head: HeapNode };
  const bySite = new Map<string, number>();
  const byOrigin = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode, stack: HeapNode['callFrame'][]) => {
    const frame = node.callFrame;
    const here = [...stack, frame];
    if (node.selfSize > 0) {
      total += node.selfSize;
      const origin = originOf(frame.url, frame.functionName);
      byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + node.selfSize);
      const site = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`;
      // The nearest frames of our own code on the way: what in the platform led to this allocation.
      const ours = here
        .filter((f) => f.url.includes('/src/') && !f.url.includes('/node_modules/'))
        .slice(-2)
        .map((f) => `${f.functionName || '(anonymous)'}:${f.lineNumber + 1}`)
        .join(' > ');
      const key = `${site} ← ${ours}`;
      bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, here);
  };
  walk(head, []);
  const kb = (bytes: number) => (bytes / 1024 / Math.max(1, calls)).toFixed(2);
  console.log(`\n${title}: ${kb(total)} KB sampled per call`);
  console.table(
    [...byOrigin]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([origin, bytes]) => ({ origin, 'KB/call': kb(bytes), share: `${((100 * bytes) / total).toFixed(1)}%` })),
  );
  console.table(
    [...bySite]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, bytes]) => ({ 'allocated at ← our code on the way': key.slice(0, 160), 'KB/call': kb(bytes) })),
  );
}
