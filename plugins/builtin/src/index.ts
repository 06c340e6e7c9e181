/** The built-in plugins, registered once; every front end builds from this registry. */
import { PluginRegistry } from '@mango/core';
import resize from '@mango/plugin-resize';
import features from '@mango/plugin-features';
import crop from '@mango/plugin-crop';
import kmeans from '@mango/plugin-kmeans';
import removeBackground from '@mango/plugin-remove-background';
import bruise from '@mango/plugin-bruise';

export const builtinPlugins = [resize, crop, removeBackground, bruise, features, kmeans] as const;

export const registry = new PluginRegistry(builtinPlugins);

export { resize, crop, removeBackground, bruise, features, kmeans };
