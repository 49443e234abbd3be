/** People and workspaces: create a person who can sign in, create a workspace, set a member's role. */
import { readPassword, required, str, flag, type Command } from '../command.ts';

export const workspaceCommands: Record<string, Command> = {
  'user:create': {
    summary: 'Create a person who can sign in to the dashboard.',
    usage: 'user:create --email <email> --name <name> [--password-stdin | --password <password>]',
    options: { email: str, name: str, password: str, 'password-stdin': flag },
    required: ['email', 'name'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const user = await services.workspaces.createUser(orm.em.fork(), {
        email: required(options, 'email'),
        name: required(options, 'name'),
        password: readPassword(options),
      });
      io.result({ id: user.id, email: user.email, name: user.name }, `Created user ${user.email} (${user.id}).`);
    },
  },

  'workspace:create': {
    summary: 'Create a workspace owned by an existing user.',
    usage: 'workspace:create --name <name> --owner <email>',
    options: { name: str, owner: str },
    required: ['owner', 'name'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const em = orm.em.fork();
      const owner = await services.workspaces.requireUserByEmail(em, required(options, 'owner'));
      const workspace = await services.workspaces.createWorkspace(em, {
        name: required(options, 'name'),
        ownerUserId: owner.id,
      });
      io.result(
        { id: workspace.id, name: workspace.name, slug: workspace.slug, owner: owner.email },
        `Created workspace "${workspace.name}" (${workspace.id}, slug ${workspace.slug}) owned by ${owner.email}.`,
      );
    },
  },

  'member:set': {
    summary: 'Add a user to a workspace with a role, or change their role.',
    usage: 'member:set --workspace <id> --email <email> --role owner|admin|editor|viewer',
    options: { workspace: str, email: str, role: str },
    required: ['workspace', 'email', 'role'],
    async run(io, options) {
      const { orm, services } = await io.container();
      const { user, membership, created } = await services.workspaces.setMember(
        orm.em.fork(),
        required(options, 'workspace'),
        {
          email: required(options, 'email'),
          role: required(options, 'role') as never,
        },
      );
      io.result(
        { workspaceId: membership.workspace.id, userId: user.id, role: membership.role, created },
        `${created ? 'Added' : 'Updated'} ${user.email} as ${membership.role} of ${membership.workspace.id}.`,
      );
    },
  },
};
