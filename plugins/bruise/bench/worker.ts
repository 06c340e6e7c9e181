/** Worker for bench.ts: scores the files it is sent (decode included) and reports back. */
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { createContext, runPlugin } from '@mango/core';
import { decodeImage, nodeImages } from '@mango/core/node';
import bruise from '../src/index.ts';

const options = { method: 'classical' as const };
const maxSide = bruise.decodeMaxSide?.(bruise.options.parse(options));
parentPort!.on('message', async (msg: { files: string[] } | 'exit') => {
  if (msg === 'exit') process.exit(0);
  let sum = 0;
  for (const f of msg.files) {
    const image = await decodeImage(readFileSync(f), f, undefined, { maxSide });
    const r = await runPlugin(bruise, image, options, createContext(nodeImages, { filename: f }));
    sum += r.bruise_percent;
  }
  parentPort!.postMessage({ done: msg.files.length, sum });
});
