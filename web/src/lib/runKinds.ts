/**
 * The kinds of stored run the Results pages name, from the plugins' run declarations
 * (core/src/runs.ts): each declares its `operation` and its English `title`. The Thai of a title
 * is keyed by the operation in i18n/th.ts (`run-kind.<operation>`), so a kind a plugin adds shows
 * its own title in English, and in Thai once th.ts has its line (runKinds.test.ts checks each).
 */
import { runKindOf, runKinds } from '@mango/core';
import type { PlotFields } from '@mango/core/plots';
import { registry } from '@mango/plugins';
import i18n from '#web/i18n/index.ts';

export interface RunKindLabel {
  /** the name runs of this kind are stored and filtered under */
  operation: string;
  /** its declared title, in English */
  title: string;
}

/** Every run kind the built-in plugins declare, in the registry's order. */
export const RUN_KIND_LABELS: readonly RunKindLabel[] = runKinds(registry).map(({ runs }) => ({
  operation: runs.operation,
  title: runs.title,
}));

/** The i18n key of a run kind's label (its Thai in th.ts). */
export const runKindKey = (operation: string) => `run-kind.${operation}`;

/**
 * A run kind's label in `language` (default: the app's): its declared title, translated; a kind no
 * plugin declares (a run stored by a plugin since removed) shows its operation.
 */
export function runKindLabel(operation: string, language: string = i18n.language): string {
  const title = RUN_KIND_LABELS.find((k) => k.operation === operation)?.title ?? operation;
  return i18n.getFixedT(language)(runKindKey(operation), { defaultValue: title });
}

/** What runs of `operation` plot, as their plugin declares it (core/src/runs.ts), or undefined. */
export const plotFieldsOf = (operation: string): PlotFields | undefined => runKindOf(registry, operation)?.runs.plots;
