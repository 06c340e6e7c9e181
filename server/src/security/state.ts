/** Per-server in-memory security state (rate-limit windows), kept apart for each ServerContext. */
import type { ServerContext } from '../context.ts';
import { RateLimiter } from './rate-limit.ts';

export interface SecurityState {
  limiter: RateLimiter;
}

const states = new WeakMap<ServerContext, SecurityState>();

export function securityState(ctx: ServerContext): SecurityState {
  let s = states.get(ctx);
  if (!s) {
    s = { limiter: new RateLimiter() };
    states.set(ctx, s);
  }
  return s;
}
