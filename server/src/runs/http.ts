/**
 * The caller policy of stored runs: which calls are stored and as whose run. A call made with a
 * partner API key from a web page (the widget on a partner's site) is not stored: a visitor's photos
 * are not the key owner's data. A key call with an Origin is one: only browser keys are accepted with
 * an Origin (server keys refuse any; see keyOriginRefusal).
 */
import type { Context } from 'hono';
import type { Caller } from '../auth/caller.ts';
import type { RunOwner } from './store.ts';

export function isBrowserPartnerCall(c: Context, caller: Caller): boolean {
  return caller.apiKeyId !== undefined && Boolean(c.req.header('origin'));
}

/** The owner of the run a call is stored as, or null when the call is not stored. */
export function runOwnerOf(c: Context, caller: Caller): RunOwner | null {
  return isBrowserPartnerCall(c, caller) ? null : caller;
}
