/** The built-in plugins, registered once; every front end builds from this registry. */
import { PluginRegistry } from '@mango/core';
import resize from '@mango/plugin-resize';

export const builtinPlugins = [resize] as const;

export const registry = new PluginRegistry(builtinPlugins);

export { resize };
