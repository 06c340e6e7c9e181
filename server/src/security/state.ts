/** Per-server in-memory security state (rate-limit windows), kept apart for each ServerContext. */
import type { ServerContext } from '../context.ts';
import { RateLimiter } from './rate-limit.ts';
import { LoginThrottle } from './login-throttle.ts';

export interface SecurityState {
  limiter: RateLimiter;
  /** the same with day-long windows */
  dailyLimiter: RateLimiter;
  /** failed sign-ins (LOGIN_LIMIT_PER_MINUTE per account and address; 3x per address, 5x per account) */
  loginThrottle: LoginThrottle;
}

const states = new WeakMap<ServerContext, SecurityState>();

export function securityState(ctx: ServerContext): SecurityState {
  let s = states.get(ctx);
  if (!s) {
    const perMinute = ctx.config.loginLimitPerMinute;
    s = {
      limiter: new RateLimiter(),
      dailyLimiter: new RateLimiter(86_400_000),
      loginThrottle: new LoginThrottle({ pair: perMinute, address: 3 * perMinute, account: 5 * perMinute }),
    };
    states.set(ctx, s);
  }
  return s;
}
