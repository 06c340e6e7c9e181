/**
 * `mango bruise --colour-card auto|off` (issue 26) on a real dev photo with a ColorChecker rendered
 * into it (blur, glare, noise) under a warm 3500 K light, as the card bench makes its photos: auto
 * finds the card, corrects the colours (the bruise % comes back to the plain photo's), takes the scale
 * from it and records it; off leaves the photo as it is. Skips with a message when ../shared is absent.
 */
import { existsSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PATCH_PITCH_MM, localScale } from '@mango/core';
import { encodeImage } from '@mango/core/node';
import { applyLightCast, poseHomography, renderPhotographedCard } from '@mango/core/testing';
import { SHARED_MISSING, loadImageFile, sharedDir } from '@mango/core/testing/node';
import { mango } from './testing.ts';

const shared = sharedDir();
const photo = shared && join(shared, 'data/bruise-dev/synthetic_composites/images/syn_mangodc_3-Center_2.jpg');
if (!photo || !existsSync(photo)) console.warn(`mango bruise --colour-card: ${SHARED_MISSING}`);

interface Photo {
  filename: string;
  result: {
    bruise_percent: number;
    fruits: unknown[];
    px_per_cm?: number;
    scale_source: string | null;
    scale_status: string;
    colour_card?: { found: boolean; patches: number; delta_e_after: { median: number } | null; matrix: unknown };
  };
}

describe.skipIf(!photo || !existsSync(photo))('mango bruise --colour-card on a photo with a card', () => {
  const pose = { x: 1340, y: 1130, pitchPx: 36, angleDeg: 160, tiltX: 0.03 };
  let dir: string;
  let truthPxPerCm: number;
  const results = async (flags: string[], input: string) => {
    const out = join(dir, `${flags.join('') || 'auto'}-${input}.json`);
    const r = await mango(['bruise', join(dir, input), '--method', 'classical', ...flags, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const file = JSON.parse(readFileSync(out, 'utf8')) as { provenance: { options: object }; photos: Photo[] };
    return { provenance: file.provenance, photo: file.photos[0] };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mango-card-'));
    const plain = await loadImageFile(photo!);
    const card = renderPhotographedCard(plain, pose);
    for (const [name, image] of [
      ['plain', plain],
      ['card', applyLightCast(card, 3500, 0)],
    ] as const) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, `${name}.png`), await encodeImage(image, 'png'));
    }
    truthPxPerCm = localScale(poseHomography(pose), 2.5, 1.5) / (PATCH_PITCH_MM.classic / 10);
  }, 120_000);

  it('auto finds the card, corrects to it and takes the scale from it; off does neither', async () => {
    const plain = await results(['--colour-card', 'off'], 'plain');
    const auto = await results([], 'card');
    const off = await results(['--colour-card', 'off'], 'card');

    const card = auto.photo.result.colour_card!;
    expect(card.found).toBe(true);
    expect(card.patches).toBeGreaterThanOrEqual(18);
    expect(card.delta_e_after!.median).toBeLessThan(2);
    expect(card.matrix).toHaveLength(3);
    expect(auto.photo.result.scale_source).toBe('colour-card');
    expect(auto.photo.result.scale_status).toBe('found');
    expect(Math.abs(auto.photo.result.px_per_cm! / truthPxPerCm - 1)).toBeLessThan(0.01);
    // off: no card looked for, no scale, and the option recorded in the provenance
    expect(off.photo.result.colour_card).toBeUndefined();
    expect(off.photo.result.scale_status).toBe('none');
    expect(off.photo.result.px_per_cm).toBeUndefined();
    expect(off.provenance.options).toMatchObject({ colourCard: 'off' });
    expect(auto.provenance.options).not.toHaveProperty('colourCard');
    // the card is no fruit either way; corrected, the warm photo scores like the plain one, uncorrected it does not
    expect(auto.photo.result.fruits).toHaveLength(plain.photo.result.fruits.length);
    const corrected = Math.abs(auto.photo.result.bruise_percent - plain.photo.result.bruise_percent);
    const uncorrected = Math.abs(off.photo.result.bruise_percent - plain.photo.result.bruise_percent);
    console.info(`bruise % change under 3500 K: ${corrected.toFixed(3)} with the card, ${uncorrected.toFixed(3)} off`);
    expect(corrected).toBeLessThan(0.5);
    expect(uncorrected).toBeGreaterThan(corrected);
  }, 300_000);
});
