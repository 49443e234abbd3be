/**
 * CPU time of the PostgreSQL backends serving one database, read from /proc (Linux only; elsewhere the
 * figure is reported as unavailable). A backend names its database in its process title
 * (`postgres: <user> <database> <client> <state>`), so only the benchmark's own connections are counted.
 */
import fs from 'node:fs/promises';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU milliseconds (user + system) used so far by each live backend of `database`, or null off Linux. */
export async function postgresBackendCpuMs(database: string): Promise<Map<number, number> | null> {
  let entries: string[];
  try {
    entries = await fs.readdir('/proc');
  } catch {
    return null;
  }
  const backends = new Map<number, number>();
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const title = (await fs.readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ');
      if (!title.startsWith('postgres: ') || !title.split(' ').includes(database)) continue;
      const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
      // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      backends.set(Number(pid), ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1000);
    } catch {
      // The process ended between listing and reading.
    }
  }
  return backends;
}

/**
 * CPU milliseconds the backends used between two readings. Backends that started in between count in full;
 * backends that ended in between are lost (the pool keeps its connections open under load, so few do).
 */
export function postgresCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ms] of after) sum += ms - (before.get(pid) ?? 0);
  return sum;
}
