/** A workspace's API keys: create one (its secret printed once), list them, disable one. */
import { listResult, required, str, type Command } from '../command.ts';

export const keyCommands: Record<string, Command> = {
  'key:create': {
    summary: 'Create a workspace API key; the secret is printed once.',
    usage: 'key:create --workspace <id> --creator <email> --name <name> [--role editor]',
    options: { workspace: str, creator: str, name: str, role: str },
    required: ['creator', 'workspace', 'name'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const em = orm.em.fork();
      const creator = await services.workspaces.requireUserByEmail(em, required(options, 'creator'));
      const { key, secret } = await services.workspaces.createApiKey(em, required(options, 'workspace'), {
        name: required(options, 'name'),
        role: ((options.role as string | undefined) ?? 'editor') as never,
        createdByUserId: creator.id,
      });
      io.result(
        { id: key.id, name: key.name, prefix: key.prefix, role: key.role, secret },
        `Created API key "${key.name}" (${key.id}, role ${key.role}).\nSecret (shown once, store it now): ${secret}`,
      );
    },
  },

  'key:list': {
    summary: "List a workspace's API keys (never their secrets).",
    usage: 'key:list --workspace <id>',
    options: { workspace: str },
    required: ['workspace'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const keys = await services.workspaces.listApiKeys(orm.em.fork(), required(options, 'workspace'));
      listResult(
        io,
        keys,
        (k) =>
          `${k.id}  ${k.prefix}…  ${k.role.padEnd(6)}  ${k.disabledAt ? 'disabled' : 'active  '}  ${k.name}  (by ${k.createdBy ?? 'unknown'}, last used ${k.lastUsedAt ?? 'never'})`,
        'No API keys.',
      );
    },
  },

  'key:disable': {
    summary: 'Disable an API key (running API instances refuse it within API_KEY_CACHE_TTL_MS, 1 s).',
    usage: 'key:disable --workspace <id> --key <key id>',
    options: { workspace: str, key: str },
    required: ['workspace', 'key'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const key = await services.workspaces.disableApiKey(
        orm.em.fork(),
        required(options, 'workspace'),
        required(options, 'key'),
      );
      io.result(
        { id: key.id, disabledAt: key.disabledAt?.toISOString() },
        `Disabled API key ${key.id} ("${key.name}").`,
      );
    },
  },
};
