export {
  maskPng,
  runImageJob,
  type EncodedImage,
  type ImageJob,
  type JobResult,
  type JobSuccess,
  type JobFailure,
} from './jobs.ts';
export { createJobPool, defaultThreads, type JobPool } from './pool.ts';
