/** People's accounts: a one-time password reset link (there is no email server; the operator hands it over). */
import { PASSWORD_RESET_TTL_MS } from '../../domain/workspaces/passwords.service.ts';
import { integer, required, str, UsageError, type Command } from '../command.ts';

export const accountCommands: Record<string, Command> = {
  'user:reset-password': {
    summary: 'Print a one-time link that lets a person set a new password (ends their sessions).',
    usage: 'user:reset-password --email <email> [--minutes 60]',
    options: { email: str, minutes: str },
    required: ['email'],
    async run(io, options) {
      const { orm, services, config } = await io.container();
      const minutes = integer(options, 'minutes', PASSWORD_RESET_TTL_MS / 60_000);
      if (minutes < 1 || minutes > 7 * 24 * 60) throw new UsageError('--minutes must be between 1 and 10080 (a week)');
      const em = orm.em.fork();
      const { token, user, expiresAt } = await services.passwords.issueReset(
        em,
        required(options, 'email'),
        minutes * 60_000,
      );
      await services.audit.record(em, {
        workspaceId: null,
        actor: 'operator',
        action: 'account.password_reset_issue',
        targetType: 'user',
        targetId: user.id,
        details: { email: user.email, expiresAt: expiresAt.toISOString() },
      });
      const url = `${config.urls.platform}/reset-password/${token}`;
      io.result(
        { email: user.email, url, expiresAt: expiresAt.toISOString() },
        `Password reset link for ${user.email} (works once, until ${expiresAt.toISOString()}; earlier links no longer work):\n${url}`,
      );
    },
  },
};
