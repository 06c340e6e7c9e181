/** Types of no-plugin-ids.js for the tests that read its lists (eslint.layers.test.ts). */
import type { Rule } from 'eslint';

export declare const PLUGIN_IDS: string[];
export declare const PLUGIN_FIELDS: string[];
export declare const noPluginIds: Rule.RuleModule;
export declare const noPluginFields: Rule.RuleModule;
declare const plugin: { rules: Record<string, Rule.RuleModule> };
export default plugin;
