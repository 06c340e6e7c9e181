/**
 * A split of items by their group (photo source), repeatable from a seed: the model training of the
 * CLI (held-out corrections) and the benches that tune a threshold on one half of the dev photos and
 * report on the other share it.
 */
import { createHash } from 'node:crypto';

/** Held-out groups: ordered by sha1(seed:group), the first ceil(share x groups) (at least one when share > 0). */
export function splitByGroup<T extends { group: string }>(items: readonly T[], share: number, seed: number) {
  const groups = [...new Set(items.map((i) => i.group))].sort((a, b) => {
    const h = (g: string) => createHash('sha1').update(`${seed}:${g}`).digest('hex');
    return h(a) < h(b) ? -1 : 1;
  });
  const n = share > 0 ? Math.min(groups.length - 1, Math.max(1, Math.ceil(share * groups.length))) : 0;
  const held = new Set(groups.slice(0, Math.max(0, n)));
  return { train: items.filter((i) => !held.has(i.group)), heldOut: items.filter((i) => held.has(i.group)) };
}
