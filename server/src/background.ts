/**
 * Work done after the answer has gone out (issue 16 item 7): the answer's timing then says nothing
 * about what the work found (e.g. whether an address has an account). Failures are logged; the
 * server waits for pending work before it closes its database.
 */
import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { Needs } from './context.ts';

/** Pause between an answer's 'finish' and the work after it, ms. */
export const AFTER_ANSWER_PAUSE_MS = 25;

const pending = new WeakMap<object, Set<Promise<void>>>();

/**
 * Runs `work` once the current answer has been written: after the response's 'finish' when the
 * request's Node response is known (`c`), then setImmediate (after that turn's I/O). The work's
 * database calls are synchronous on SQLite: started any earlier, they would hold the answer back.
 */
export function afterAnswer(ctx: Needs<'logger'>, label: string, work: () => Promise<void>, c?: Context): void {
  let tasks = pending.get(ctx);
  if (!tasks) pending.set(ctx, (tasks = new Set()));
  const outgoing = (c?.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  const written = new Promise<void>((resolve) => {
    if (!outgoing || outgoing.writableFinished || outgoing.destroyed) return resolve();
    outgoing.once('finish', resolve);
    outgoing.once('close', resolve);
  });
  // A short pause after 'finish' as well: a client in this process (the tests) still has to read the
  // answer, which the work's synchronous database calls would otherwise hold back.
  const task: Promise<void> = written
    .then(() => new Promise<void>((resolve) => setTimeout(resolve, AFTER_ANSWER_PAUSE_MS)))
    .then(work)
    .catch((err: unknown) => ctx.logger.error(`${label} failed`, err))
    .finally(() => tasks.delete(task));
  tasks.add(task);
}

/** Resolves when no work started by afterAnswer is pending (also what the tests wait for). */
export async function backgroundSettled(ctx: Needs<'logger'>): Promise<void> {
  const tasks = pending.get(ctx);
  while (tasks && tasks.size > 0) await Promise.all([...tasks]);
}
