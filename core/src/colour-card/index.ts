export * from './reference.ts';
export * from './geometry.ts';
export * from './correct.ts';
export * from './detect.ts';
export * from './mask.ts';
