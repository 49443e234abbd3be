import { decodeTime } from 'ulid';
import { ConflictError } from '../../src/errors.ts';
import { checkSchedule } from '../../src/domain/campaigns/campaign-status.ts';
import { canTransitionJob, isTerminalJobStatus, JOB_STATUSES } from '../../src/domain/jobs/job-status.ts';
import { isIdOf, newId } from '../../src/domain/shared/ids.ts';
import { RESERVED_SLUGS, slugify } from '../../src/domain/workspaces/slug.ts';
import { createProfileResolver } from '../../src/mcp/profile-resolver.ts';
import type { Principal } from '../../src/auth/principal.ts';

describe('job statuses', () => {
  it('never leave a terminal state', () => {
    for (const terminal of ['succeeded', 'failed', 'cancelled'] as const) {
      expect(isTerminalJobStatus(terminal)).toBe(true);
      for (const next of JOB_STATUSES) expect(canTransitionJob(terminal, next)).toBe(false);
    }
  });

  it('let a cancellation request end only in a terminal state', () => {
    expect(canTransitionJob('cancel_requested', 'running')).toBe(false);
    expect(canTransitionJob('cancel_requested', 'cancelled')).toBe(true);
    expect(canTransitionJob('running', 'input_required')).toBe(true);
    expect(canTransitionJob('input_required', 'running')).toBe(true);
  });
});

describe('ids', () => {
  it('are prefixed ULIDs', () => {
    const a = newId('workspace');
    expect(a).toMatch(/^ws_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(isIdOf('workspace', a)).toBe(true);
    expect(isIdOf('job', a)).toBe(false);
  });

  /** Runs `body` with `Date.now()` answering `clock()`: ulid() reads the time there. */
  function atTimes<T>(clock: () => number, body: () => T): T {
    const realNow = Date.now;
    Date.now = clock;
    try {
      return body();
    } finally {
      Date.now = realNow;
    }
  }

  it('carry their creation time, so ids of later milliseconds sort after earlier ones', () => {
    // What ids.ts promises: time-ordered (inserts stay local, cursors sort by creation). Within one
    // millisecond the order is random, so the clock is stepped by hand instead of hoping two calls differ.
    const start = Date.parse('2026-03-01T12:00:00.000Z');
    const times = [start, start + 1, start + 2, start + 1000, start + 86_400_000];
    let now = 0;
    const ids = atTimes(
      () => now,
      () =>
        times.map((time) => {
          now = time;
          return newId('job');
        }),
    );
    expect(ids.map((id) => decodeTime(id.slice('job_'.length)))).toEqual(times);
    expect([...ids].reverse().sort()).toEqual(ids);
  });

  it('differ within one millisecond (80 random bits)', () => {
    const ids = atTimes(
      () => Date.parse('2026-03-01T12:00:00.000Z'),
      () => Array.from({ length: 1000 }, () => newId('job')),
    );
    expect(new Set(ids).size).toBe(1000);
  });
});

describe('workspace slugs', () => {
  it.each([
    ['Acme Coffee', 'acme-coffee'],
    ['  Café   Ünïcode!! ', 'cafe-unicode'],
    ['X', 'workspace-x'],
    ['日本', 'workspace'],
    ['a'.repeat(80), 'a'.repeat(40)],
  ])('%j → %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it('reserve the platform host names', () => {
    for (const name of ['www', 'app', 'auth', 'api']) expect(RESERVED_SLUGS.has(name)).toBe(true);
  });
});

describe('profile resolution', () => {
  const principal = { workspaceId: 'ws_1' } as Principal;
  const lookup = async (code: string, workspaceId: string) =>
    code === 'secret-code' && workspaceId === 'ws_1' ? 'campaign_ops' : null;
  const resolver = createProfileResolver(lookup);

  it('uses the default profile without a parameter', async () => {
    expect(await resolver.resolve(principal, undefined)).toBe('external_default');
    expect(await resolver.resolve(principal, '')).toBe('external_default');
  });

  it('selects a profile only through its call code', async () => {
    expect(await resolver.resolve(principal, 'secret-code')).toBe('campaign_ops');
  });

  it('falls back to the discovery profile for a profile name, an unknown code or a foreign code', async () => {
    expect(await resolver.resolve(principal, 'campaign_ops')).toBe('discovery');
    expect(await resolver.resolve(principal, 'nope')).toBe('discovery');
    expect(await resolver.resolve({ workspaceId: 'ws_2' } as Principal, 'secret-code')).toBe('discovery');
  });
});

describe('schedules', () => {
  const at = (iso: string) => new Date(iso);
  it('refuses an end at or before the start, naming the end date as the field in its details', () => {
    for (const endsAt of ['2026-06-01T00:00:00Z', '2026-05-01T00:00:00Z']) {
      let refusal: unknown;
      try {
        checkSchedule(at('2026-06-01T00:00:00Z'), at(endsAt));
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(ConflictError);
      expect((refusal as ConflictError).details).toEqual({
        issues: [{ field: 'endsAt', message: 'must be after startsAt' }],
      });
    }
  });

  it('accepts an end after the start, and an open start or end', () => {
    expect(() => checkSchedule(at('2026-06-01T00:00:00Z'), at('2026-06-02T00:00:00Z'))).not.toThrow();
    expect(() => checkSchedule(null, at('2026-06-02T00:00:00Z'))).not.toThrow();
    expect(() => checkSchedule(at('2026-06-01T00:00:00Z'), undefined)).not.toThrow();
  });
});
