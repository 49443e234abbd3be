import type { z } from 'zod';
import { ValidationError } from '../../errors.ts';

/**
 * Parses input with a zod schema, turning failures into one `ValidationError` that names every offending
 * field, e.g. `email: must be an email address; role: must be one of owner, admin, editor, viewer`.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what = 'input'): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    field: issue.path.map(String).join('.') || what,
    message: issue.message,
  }));
  throw new ValidationError(`Invalid ${what}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, {
    issues,
  });
}
