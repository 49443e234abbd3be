/** What a person reads when a tool refuses a console action (console-tools.ts `consoleNotice`). */
import { consoleNotice } from '../../src/http/dashboard/console-tools.ts';
import { AppError, NotFoundError } from '../../src/errors.ts';

it('says what the role lacks instead of naming the tool and selector', () => {
  const refusal = new AppError('forbidden', 'Your role (viewer) does not allow manage_brand action=update_voice', {
    requiredPermission: 'content:write',
  });
  expect(consoleNotice(refusal)).toBe(
    'Your role (viewer) does not allow this: changing campaigns, products, surfaces and the brand kit takes the editor role or above. A workspace admin can change your role.',
  );
});

it('lists the fields to fix without the tool prefix', () => {
  const invalid = new AppError(
    'validation_failed',
    'Invalid arguments for manage_products action=import_from_url: sourceUrl: Invalid URL',
    { issues: [{ field: 'sourceUrl', message: 'Invalid URL' }] },
  );
  expect(consoleNotice(invalid)).toBe('Check the form: sourceUrl: Invalid URL.');
});

it('keeps every other message as the domain wrote it', () => {
  expect(consoleNotice(new NotFoundError('Campaign', 'cmp_1'))).toBe('Campaign cmp_1 was not found');
  const cancel = new AppError('forbidden', 'Your role (viewer) does not allow cancelling a job');
  expect(consoleNotice(cancel)).toBe('Your role (viewer) does not allow cancelling a job');
  const conflict = new AppError('conflict', 'The variant changed since you read it (now version 3)');
  expect(consoleNotice(conflict)).toBe('The variant changed since you read it (now version 3)');
});
