/**
 * The job activities guard every status write with `status in statusesThatMayBecome(to)`, evaluated by the
 * database. These are the exact lists they used to spell out by hand; a change to the transition table that
 * changes them changes what a late activity retry can do to a job row.
 */
import { JOB_STATUSES, statusesThatMayBecome, TERMINAL_JOB_STATUSES } from '../../src/domain/jobs/job-status.ts';

describe('the conditional updates of the job activities', () => {
  it('let only an open job that has not been asked to cancel start running or wait for input', () => {
    expect(statusesThatMayBecome('running')).toEqual(['queued', 'running', 'input_required']);
    expect(statusesThatMayBecome('input_required')).toEqual(['queued', 'running', 'input_required']);
  });

  it('let every job that has not finished end, and no finished job end again', () => {
    const open = JOB_STATUSES.filter((status) => !TERMINAL_JOB_STATUSES.includes(status));
    expect(open).toEqual(['queued', 'running', 'input_required', 'cancel_requested']);
    for (const end of TERMINAL_JOB_STATUSES) expect(statusesThatMayBecome(end)).toEqual(open);
  });
});
