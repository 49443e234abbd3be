/**
 * Password sign-in, shared by the authorization server's login page (`auth/oidc/interactions.ts`) and the
 * dashboard's (`http/routes/dashboard.ts`): one rule for checking a password and throttling failures, with
 * no HTTP in it.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { verifyPassword } from '../../auth/passwords.ts';
import type { RateLimiter } from '../rate-limits/rate-limiter.ts';
import { User } from '../workspaces/user.entity.ts';
import { Email } from '../workspaces/workspace.schemas.ts';

/**
 * Sign-in throttling: failed attempts count per email (10 per 15 minutes, then one every 90 seconds) and
 * per client address (100 per 15 minutes); successful sign-ins do not count.
 */
export const LOGIN_LIMITS = {
  perEmail: { name: 'sign-in-failures-email', limit: 10, windowSeconds: 15 * 60 },
  perIp: { name: 'sign-in-failures-ip', limit: 100, windowSeconds: 15 * 60 },
};

/**
 * Checks a password with throttling of failures per email and per client address. Returns the user, or a
 * message that does not reveal whether the email exists.
 */
export async function authenticatePassword(
  deps: { orm: MikroORM; limiter: RateLimiter },
  email: string,
  password: string,
  ip: string,
): Promise<{ user: User } | { error: string; throttled: boolean }> {
  const normalised = Email.safeParse(email);
  const key = normalised.success ? normalised.data : email.trim().toLowerCase();
  const [byEmail, byIp] = await Promise.all([
    deps.limiter.blocked(LOGIN_LIMITS.perEmail, key),
    deps.limiter.blocked(LOGIN_LIMITS.perIp, ip),
  ]);
  if (byEmail.blocked || byIp.blocked) {
    const wait = Math.max(byEmail.retryAfterSeconds, byIp.retryAfterSeconds);
    return {
      error: `Too many failed sign-in attempts. Try again in ${Math.ceil(wait / 60)} minute(s).`,
      throttled: true,
    };
  }
  const user = normalised.success
    ? await deps.orm.em.fork().findOne(User, { email: normalised.data }, { populate: ['passwordHash'] })
    : null;
  if (!user?.passwordHash || !(await verifyPassword(password, user.passwordHash))) {
    await Promise.all([deps.limiter.consume(LOGIN_LIMITS.perEmail, key), deps.limiter.consume(LOGIN_LIMITS.perIp, ip)]);
    return { error: 'That email and password do not match an account.', throttled: false };
  }
  return { user };
}
