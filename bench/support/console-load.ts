/**
 * Load on one page with autocannon, keeping every response time (autocannon's own summary has p90 and p97.5,
 * not p95) and checking every answer: it must be 200 and show the page's heading, because a page that answers
 * an error quickly must not pass.
 */
import fs from 'node:fs/promises';
import autocannon from 'autocannon';

export interface PageLoadResult {
  label: string;
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  /** Socket errors and timeouts. */
  errors: number;
  /** Answers with another status than 200 (redirects to the sign-in page included). */
  wrongStatus: number;
  /** 200 answers without the page's heading. */
  invalid: number;
  /** Up to three examples of what was wrong. */
  reasons: string[];
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The text of the first `<h1>` (tags stripped, the few entities the `html` template writes decoded). */
export function headingOf(body: string): string | null {
  const match = /<h1\b[^>]*>([\s\S]*?)<\/h1>/i.exec(body);
  if (!match) return null;
  return match[1]!
    .replace(/<[^>]*>/g, '')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Why an answer is not the page (null when it is). */
export function checkPage(status: number, body: string, heading: RegExp): string | null {
  if (status !== 200) return `status ${status}`;
  const h1 = headingOf(body);
  if (h1 === null) return 'no <h1>';
  return heading.test(h1) ? null : `heading "${h1.slice(0, 80)}" does not match ${heading}`;
}

export function pageLoad(options: {
  label: string;
  url: string;
  headers: Record<string, string>;
  connections: number;
  durationSeconds: number;
  heading: RegExp;
}): Promise<PageLoadResult> {
  const times: number[] = [];
  let wrongStatus = 0;
  let invalid = 0;
  const reasons: string[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        pipelining: 1,
        duration: options.durationSeconds,
        requests: [
          {
            method: 'GET',
            headers: options.headers,
            onResponse: (status: number, body: string) => {
              const reason = checkPage(status, body, options.heading);
              if (reason === null) return;
              if (status === 200) invalid += 1;
              else wrongStatus += 1;
              if (reasons.length < 3 && !reasons.includes(reason)) reasons.push(reason);
            },
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error);
        times.sort((a, b) => a - b);
        resolve({
          label: options.label,
          requests: result.requests.total,
          requestsPerSecond: result.requests.total / result.duration,
          p50: percentile(times, 50),
          p95: percentile(times, 95),
          p99: percentile(times, 99),
          errors: result.errors + result.timeouts,
          wrongStatus,
          invalid,
          reasons,
        });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime: number) => times.push(responseTime));
  });
}

/** CPU milliseconds (user + system) a process has used so far, from /proc (null off Linux). */
export async function processCpuMs(pid: number): Promise<number | null> {
  try {
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: utime is field 14, stime 15 (in USER_HZ ticks of 10 ms).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}
