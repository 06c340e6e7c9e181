/**
 * Work done after the answer has gone out (issue 16 item 7): the answer's timing then says nothing
 * about what the work found (e.g. whether an address has an account). Failures are logged; the
 * server waits for pending work before it closes its database.
 */
import type { ServerContext } from './context.ts';

const pending = new WeakMap<ServerContext, Set<Promise<void>>>();

/** Runs `work` once the current answer has been written (setImmediate: after this turn's I/O). */
export function afterAnswer(ctx: ServerContext, label: string, work: () => Promise<void>): void {
  let tasks = pending.get(ctx);
  if (!tasks) pending.set(ctx, (tasks = new Set()));
  const task: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
    .then(work)
    .catch((err: unknown) => ctx.logger.error(`${label} failed`, err))
    .finally(() => tasks.delete(task));
  tasks.add(task);
}

/** Resolves when no work started by afterAnswer is pending (also what the tests wait for). */
export async function backgroundSettled(ctx: ServerContext): Promise<void> {
  const tasks = pending.get(ctx);
  while (tasks && tasks.size > 0) await Promise.all([...tasks]);
}
