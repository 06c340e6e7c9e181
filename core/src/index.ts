export * from './image.ts';
export * from './errors.ts';
export * from './plugin.ts';
export * from './registry.ts';
export * from './pipeline.ts';
export * from './models.ts';
export * from './color.ts';
export * from './schemas/index.ts';
