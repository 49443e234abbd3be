/** A workspace's credits: grant them (idempotently), show the balance. */
import { integer, required, str, type Command } from '../command.ts';

export const creditCommands: Record<string, Command> = {
  'credits:grant': {
    summary: 'Grant credits to a workspace.',
    usage: 'credits:grant --workspace <id> --amount <n> [--note <text>] [--idempotency-key <key>]',
    options: { workspace: str, amount: str, note: str, 'idempotency-key': str },
    required: ['workspace'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const workspaceId = required(options, 'workspace');
      const amount = integer(options, 'amount');
      const idempotencyKey =
        (options['idempotency-key'] as string | undefined) ?? `operator-grant:${workspaceId}:${Date.now()}:${amount}`;
      const { entry, replayed } = await services.credits.grant(orm.em.fork(), {
        workspaceId,
        amount,
        idempotencyKey,
        description: (options.note as string | undefined) ?? 'operator grant',
        actor: 'operator',
      });
      const balance = await services.credits.balance(orm.em.fork(), workspaceId);
      io.result(
        { entryId: entry.id, replayed, balance },
        `${replayed ? 'Already granted (same idempotency key)' : `Granted ${amount} credits`} to ${workspaceId}; available now ${balance.available}.`,
      );
    },
  },

  'credits:balance': {
    summary: "Show a workspace's credit balance.",
    usage: 'credits:balance --workspace <id>',
    options: { workspace: str },
    required: ['workspace'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const workspaceId = required(options, 'workspace');
      await services.workspaces.requireWorkspace(orm.em.fork(), workspaceId);
      const balance = await services.credits.balance(orm.em.fork(), workspaceId);
      io.result(balance, `Available ${balance.available}, held ${balance.held}, spent ${balance.spent}.`);
    },
  },
};
