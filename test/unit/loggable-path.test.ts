/** Paths in error logs never carry the one-time tokens of invitation and reset links. */
import { loggablePath } from '../../src/http/middleware/error-boundary.ts';

it('masks the token of invitation and password-reset links, and only that', () => {
  expect(loggablePath('/invitations/inv_secret-token/accept')).toBe('/invitations/[token]/accept');
  expect(loggablePath('/reset-password/abcDEF123')).toBe('/reset-password/[token]');
  expect(loggablePath('/w/ws_01/campaigns/cmp_1')).toBe('/w/ws_01/campaigns/cmp_1');
});
