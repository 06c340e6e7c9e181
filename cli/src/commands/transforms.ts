import type { Command } from 'commander';
import { registry } from '@mango/plugins';
import { transformCommand } from './transform.ts';

export function resizeCommand(program: Command) {
  transformCommand(program, registry.get('resize'), {
    format: 'jpeg',
    ext: '.jpg',
    description: 'resize images (files or directories, recursive) and write JPEGs to --out-dir',
  });
}

export function removeBackgroundCommand(program: Command) {
  if (!registry.has('remove-background')) return;
  transformCommand(program, registry.get('remove-background'), {
    format: 'png',
    ext: '.png',
    description: 'cut the fruit out of each photo: PNGs with a transparent background in --out-dir',
  });
}
