/** The built-in plugins, registered once; every front end builds from this registry. */
import { PluginRegistry } from '@mango/core';
import resize from '@mango/plugin-resize';
import features from '@mango/plugin-features';
import crop from '@mango/plugin-crop';
import kmeans from '@mango/plugin-kmeans';

export const builtinPlugins = [resize, features, crop, kmeans] as const;

export const registry = new PluginRegistry(builtinPlugins);

export { resize, features, crop, kmeans };
