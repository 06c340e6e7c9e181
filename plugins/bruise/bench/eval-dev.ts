/**
 * Runs the three evaluations on the development split (../shared/data/bruise-dev) and writes JSON.
 * Usage: node --import tsx plugins/bruise/bench/eval-dev.ts [out.json] [--method classical] [--truth-fruit]
 *        [--only pixel,labels,boxes]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluateBruise, formatBruiseEvaluation } from '../src/eval/index.ts';
import { args, devDir, flag } from './common.ts';

const dev = devDir();
const only = new Set((flag('--only') ?? 'pixel,labels,boxes').split(','));
const outPath = args[0] && !args[0].startsWith('--') ? args[0] : '/tmp/bruise-eval-dev.json';
const ev = await evaluateBruise({
  ...(only.has('pixel')
    ? { images: join(dev, 'synthetic_composites', 'images'), truth: join(dev, 'synthetic_composites') }
    : {}),
  ...(only.has('labels') ? { labels: join(dev, 'senmango_real_lesions', 'labels.csv') } : {}),
  ...(only.has('boxes') ? { boxes: join(dev, 'aicup_defect_boxes', 'boxes.csv') } : {}),
  method: (flag('--method') as 'auto' | 'classical' | 'model' | undefined) ?? 'auto',
  options: flag('--options') ? JSON.parse(flag('--options')!) : undefined,
  truthFruit: args.includes('--truth-fruit'),
  onImage: (done, total) => {
    if (done % 25 === 0 || done === total) process.stderr.write(`${done}/${total}\n`);
  },
});
writeFileSync(outPath, JSON.stringify(ev, null, 2));
console.log(formatBruiseEvaluation(ev));
console.log(`JSON: ${outPath}`);
