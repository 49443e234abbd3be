/**
 * Platform-wide settings no workspace owns: verified internal OAuth clients, call codes (which select a tool
 * profile), platform-operator rights, the authorization server's signing keys, the sealing of secrets at rest.
 */
import { acrossWorkspaces } from '../../domain/shared/scope.ts';
import { count } from '../../views/count.ts';
import { flag, listResult, required, str, UsageError, type Command } from '../command.ts';

export const platformCommands: Record<string, Command> = {
  'oauth:client-internal': {
    summary: 'Mark an OAuth client as a verified internal client (or unmark it with --off).',
    usage: 'oauth:client-internal --client <client_id> [--note <text>] [--off]',
    options: { client: str, note: str, off: flag },
    required: ['client'],
    async run(io, options) {
      const { orm } = await io.container();
      const clientId = required(options, 'client');
      const internal = !options.off;
      await orm.em.getConnection().execute(
        `insert into oauth_client_flags (client_id, internal, note, updated_at) values (?, ?, ?, now())
         on conflict (client_id) do update set internal = excluded.internal, note = excluded.note, updated_at = now()`,
        [clientId, internal, (options.note as string | undefined) ?? null],
      );
      io.result({ clientId, internal }, `${clientId} is ${internal ? 'now' : 'no longer'} a verified internal client.`);
    },
  },

  'callcode:issue': {
    summary: 'Issue a secret call code that selects a tool profile (printed once, stored hashed).',
    usage: 'callcode:issue --profile <name> [--workspace <ws_id>] [--note <text>]',
    options: { profile: str, workspace: str, note: str },
    required: ['profile'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const em = orm.em.fork();
      const workspaceId = typeof options.workspace === 'string' ? options.workspace.trim() : null;
      if (workspaceId) await services.workspaces.requireWorkspace(em, workspaceId);
      const { code, callCode } = await services.callCodes.issue(
        em,
        { profile: required(options, 'profile'), workspaceId, note: (options.note as string | undefined) ?? null },
        'operator-cli',
      );
      io.result(
        { code, ...callCode },
        `Call code for profile ${callCode.profile}${workspaceId ? ` (workspace ${workspaceId} only)` : ''}; shown once, store it now:\n\n  ${code}\n\nUse it as ${io.config.urls.mcp}?profile=${code}`,
      );
    },
  },

  'callcode:list': {
    summary: 'List call codes (prefix, profile, workspace limit, state); the codes themselves are never shown.',
    usage: 'callcode:list',
    options: {},
    async run(io) {
      const { orm, services } = await io.container();
      const codes = await services.callCodes.list(orm.em.fork());
      listResult(
        io,
        codes,
        (c) =>
          `${c.id}  ${c.prefix}…  ${c.profile}  ${c.workspaceId ?? 'any workspace'}  ${c.revokedAt ? `revoked ${c.revokedAt}` : 'active'}${c.note ? `  ${c.note}` : ''}`,
        'No call codes.',
      );
    },
  },

  'callcode:revoke': {
    summary: 'Revoke a call code by id; connections using it fall back to the discovery profile.',
    usage: 'callcode:revoke --id <ccd_id>',
    options: { id: str },
    required: ['id'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const callCode = await services.callCodes.revoke(orm.em.fork(), required(options, 'id'));
      io.result(callCode, `Revoked call code ${callCode.id} (${callCode.prefix}…, profile ${callCode.profile}).`);
    },
  },

  'user:operator': {
    summary: 'Grant (or with --off remove) platform-operator rights: the operator pages of the dashboard.',
    usage: 'user:operator --email <email> [--off]',
    options: { email: str, off: flag },
    required: ['email'],
    async run(io, options) {
      const { orm } = await io.container();
      const email = required(options, 'email').toLowerCase();
      const on = !options.off;
      const updated = await orm.em
        .getConnection()
        .execute<{ id: string }[]>('update users set is_operator = ? where email = ? returning id', [on, email]);
      if (!updated.length) throw new UsageError(`No user with email ${email}`);
      io.result({ email, operator: on }, `${email} is ${on ? 'now' : 'no longer'} a platform operator.`);
    },
  },

  'oauth:rotate-signing-key': {
    summary: 'Add a new signing key for the authorization server (it signs from the next restart on).',
    usage: 'oauth:rotate-signing-key',
    options: {},
    async run(io) {
      const { orm, config } = await io.container();
      const { rotateSigningKey } = await import('../../auth/oidc/signing-keys.ts');
      const kid = await rotateSigningKey(orm, config.secrets.cookieKeys);
      io.result(
        { kid },
        `Added signing key ${kid}; restart the API instances to sign with it (older keys stay published).`,
      );
    },
  },

  'secrets:reseal': {
    summary: 'Re-seal every stored channel credential with the first CREDENTIAL_KEYS key (key rotation).',
    usage: 'secrets:reseal',
    options: {},
    async run(io) {
      const { orm, services } = await io.container();
      // An operator's sweep over every workspace's accounts; each re-seal runs under the account's lock.
      const { resealed, alreadyCurrent } = await services.channels.access.resealAll(acrossWorkspaces(orm.em));
      io.result(
        { resealed, alreadyCurrent },
        `Re-sealed ${count(resealed, 'channel credential')} with the current key; ${alreadyCurrent} already were. ` +
          'Keys after the first in CREDENTIAL_KEYS can now be removed.',
      );
    },
  },
};
