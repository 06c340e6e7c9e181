/**
 * Runs one job per input file on the worker pool: a progress bar on a terminal, results in input
 * order, failures collected (a failed file never stops the others) and summarised at the end.
 */
import { createJobPool, defaultThreads, type ImageJob, type JobResult } from '@mango/runner';
import type { InputFile } from './inputs.ts';
import { printable } from './util.ts';

export interface BatchOptions {
  concurrency?: number;
  /** the largest image accepted, pixels (--max-megapixels) */
  maxPixels?: number;
  /** called as each file finishes (in completion order) */
  onResult?: (file: InputFile, result: JobResult) => Promise<void> | void;
  quiet?: boolean;
}

export interface BatchOutcome {
  /**
   * Every file's result in input order, with its figures but without its encoded pictures (the
   * output image, the extra images, the thumbnail): `onResult` gets those as each file is done. A
   * batch of thousands of photos would otherwise hold all of them until the end (12.5 MB per
   * 12-megapixel cut-out).
   */
  results: { file: InputFile; result: JobResult }[];
  failed: { file: InputFile; message: string }[];
  seconds: number;
}

export async function runBatch(
  files: InputFile[],
  makeJob: (f: InputFile) => ImageJob,
  options: BatchOptions = {},
): Promise<BatchOutcome> {
  const threads = Math.max(1, Math.min(options.concurrency ?? defaultThreads(), files.length));
  // One photo runs on this thread: a worker thread would only add its start-up (loading the
  // plugins a second time) to the one job.
  // readAhead: each worker decodes its next photo while it analyses one (decoding runs off its thread).
  const pool = createJobPool({ threads: files.length === 1 ? 0 : threads, idleTimeout: 1000, readAhead: true });
  // cli-progress loads only when a bar is shown.
  const progress = process.stderr.isTTY && !options.quiet && files.length > 1 ? await import('cli-progress') : null;
  const bar = progress
    ? new progress.SingleBar(
        {
          format: ' {bar} {value}/{total} images | {eta_formatted} left | {file}',
          hideCursor: true,
          stream: process.stderr,
        },
        progress.Presets.shades_classic,
      )
    : null;
  bar?.start(files.length, 0, { file: '' });
  const started = performance.now();
  const results: BatchOutcome['results'] = new Array(files.length);
  const failed: BatchOutcome['failed'] = [];
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      const file = files[i];
      let result: JobResult;
      try {
        result = await pool.run({ ...makeJob(file), maxPixels: options.maxPixels });
      } catch (e) {
        // The worker thread itself failed (out of memory, a native abort): this file fails, the batch goes on.
        const message = `${file.relative}: the worker scoring it stopped: ${(e as Error).message}`;
        result = { ok: false, name: file.relative, error: { code: 'INTERNAL', status: 500, message } };
      }
      if (!result.ok) failed.push({ file, message: result.error.message });
      try {
        await options.onResult?.(file, result);
      } catch (e) {
        failed.push({ file, message: `could not write the output: ${(e as Error).message}` });
      }
      results[i] = { file, result: withoutPictures(result) };
      done++;
      bar?.update(done, { file: printable(file.relative) });
    }
  };
  try {
    await Promise.all(Array.from({ length: threads * 2 }, worker));
  } finally {
    bar?.stop();
    await pool.destroy();
  }
  return { results, failed, seconds: (performance.now() - started) / 1000 };
}

function withoutPictures(result: JobResult): JobResult {
  if (!result.ok) return result;
  const { image: _image, images: _images, thumbnail: _thumbnail, ...figures } = result;
  return { ...figures, images: {} };
}

/** The end-of-run summary; returns the exit code (1 when any file failed). */
export function summarise(outcome: BatchOutcome, what: string): number {
  const ok = outcome.results.filter((r) => r?.result.ok).length;
  const rate = outcome.seconds > 0 ? ` (${(outcome.results.length / outcome.seconds).toFixed(1)} images/s)` : '';
  console.error(`${what}: ${ok} of ${outcome.results.length} images in ${outcome.seconds.toFixed(1)} s${rate}`);
  if (outcome.failed.length > 0) {
    console.error(`${outcome.failed.length} failed:`);
    for (const f of outcome.failed) console.error(`  ${printable(f.file.path)}: ${printable(failureText(f))}`);
  }
  return outcome.failed.length > 0 ? 1 : 0;
}

/** A failure's reason without the file name the decoder put in front of it. */
export function failureText(f: BatchOutcome['failed'][number]): string {
  const prefix = `${f.file.relative}: `;
  return f.message.startsWith(prefix) ? f.message.slice(prefix.length) : f.message;
}

/** The reason each failed file failed, by path. */
export const failuresByPath = (outcome: BatchOutcome) =>
  new Map(outcome.failed.map((f) => [f.file.path, failureText(f)]));
