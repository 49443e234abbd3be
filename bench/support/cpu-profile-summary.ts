/**
 * Where the CPU time of a V8 CPU profile (`.cpuprofile`) went: self time per function and per origin
 * (our code, each npm package, Node internals, garbage collection, idle), so a benchmark can print the
 * answer instead of asking someone to open the profile in a viewer.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface CpuShare {
  name: string;
  ms: number;
  /** Share of the busy (non-idle) time. */
  share: number;
}

const ROOT = path.resolve(import.meta.dirname, '../..');

/** `our code: src/mcp`, `@modelcontextprotocol/server`, `node internals`, `(garbage collector)`, … */
export function originOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const file = url.startsWith('file://') ? new URL(url).pathname : url;
  const modules = file.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = file.slice(modules + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (file.startsWith('node:') || !file.startsWith('/')) return 'node internals';
  const relative = path.relative(ROOT, file);
  if (relative.startsWith('..')) return 'other';
  const segments = relative.split(path.sep);
  return `our code: ${segments.slice(0, Math.min(2, segments.length - 1)).join('/')}`;
}

/** Self time per node, from the samples and their time deltas (hit counts are not filled in by V8 here). */
function selfTimes(profile: CpuProfile): Map<number, number> {
  const times = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i += 1) {
    // A sample's delta is the time since the previous sample; attribute it to the next sample's node.
    const delta = deltas[i + 1] ?? 0;
    times.set(samples[i]!, (times.get(samples[i]!) ?? 0) + delta);
  }
  return times;
}

function keyOf(node: ProfileNode): { key: string; origin: string } {
  const { functionName, url, lineNumber } = node.callFrame;
  const origin = originOf(url, functionName);
  const where = url ? `${origin} ${path.basename(url)}:${lineNumber + 1}` : origin;
  return { key: `${functionName || '(anonymous)'} — ${where}`, origin };
}

export function summariseCpuProfile(
  profile: CpuProfile,
  top = 25,
): {
  totalMs: number;
  idleMs: number;
  byOrigin: CpuShare[];
  byFunction: CpuShare[];
} {
  const times = selfTimes(profile);
  const origins = new Map<string, number>();
  const functions = new Map<string, number>();
  let idle = 0;
  let total = 0;
  for (const node of profile.nodes) {
    const micros = times.get(node.id) ?? 0;
    if (micros === 0) continue;
    total += micros;
    if (node.callFrame.functionName === '(idle)') {
      idle += micros;
      continue;
    }
    const { key, origin } = keyOf(node);
    origins.set(origin, (origins.get(origin) ?? 0) + micros);
    functions.set(key, (functions.get(key) ?? 0) + micros);
  }
  const busy = total - idle;
  const rank = (map: Map<string, number>, limit: number): CpuShare[] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, micros]) => ({ name, ms: micros / 1000, share: busy > 0 ? micros / busy : 0 }));
  return {
    totalMs: total / 1000,
    idleMs: idle / 1000,
    byOrigin: rank(origins, 20),
    byFunction: rank(functions, top),
  };
}

/** Prints where a recorded profile's CPU time went, per request served while it was recorded. */
export async function printCpuProfile(file: string, requests: number, headline: string): Promise<void> {
  const summary = summariseCpuProfile(JSON.parse(await fs.readFile(file, 'utf8')) as CpuProfile, 20);
  console.log(`\n${headline}: ${file}`);
  console.log(
    `sampled busy ${(summary.totalMs - summary.idleMs).toFixed(0)} ms of ${summary.totalMs.toFixed(0)} ms (busy includes time the thread was runnable but descheduled)`,
  );
  const shares = (rows: CpuShare[]) =>
    rows.map((r) => ({
      name: r.name,
      'ms per request': (r.ms / requests).toFixed(3),
      'share of busy': `${(r.share * 100).toFixed(1)}%`,
    }));
  console.log('Self time by origin:');
  console.table(shares(summary.byOrigin.slice(0, 15)));
  console.log('Self time by function:');
  console.table(shares(summary.byFunction));
}
