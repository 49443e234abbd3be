import { z } from 'zod';
import { ROLES } from './roles.ts';

export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(320, 'must be at most 320 characters')
  .pipe(z.email({ error: 'must be an email address' }));

export const PersonName = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

export const Password = z.string().min(10, 'must be at least 10 characters').max(200, 'must be at most 200 characters');

export const RoleSchema = z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` });

export const WorkspaceName = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

export const ApiKeyName = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');

export const CreateUserSchema = z.object({ email: Email, name: PersonName, password: Password.optional() });
export type CreateUserInput = z.input<typeof CreateUserSchema>;

export const CreateWorkspaceSchema = z.object({ name: WorkspaceName, ownerUserId: z.string().min(1) });
export type CreateWorkspaceInput = z.input<typeof CreateWorkspaceSchema>;

export const AddMemberSchema = z.object({ email: Email, role: RoleSchema });
export type AddMemberInput = z.input<typeof AddMemberSchema>;

export const CreateApiKeySchema = z.object({ name: ApiKeyName, role: RoleSchema, createdByUserId: z.string().min(1) });
export type CreateApiKeyInput = z.input<typeof CreateApiKeySchema>;
