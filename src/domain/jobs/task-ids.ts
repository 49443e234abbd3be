import { randomBytes } from 'node:crypto';

/** An MCP task id: `tsk_` plus 192 random bits, so task handles cannot be guessed. */
export function newTaskId(): string {
  return `tsk_${randomBytes(24).toString('base64url')}`;
}
