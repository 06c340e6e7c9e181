/** How a fruit's grade reads in the results tables (/viewphoto/result and /results/:id). */
import type { TFunction } from 'i18next';
import { type BruiseFruit } from '@mango/plugin-bruise/results';

/** The fruit's grade, translated, with its size group when the rules have them ('–': not graded). */
export function fruitGradeText(f: BruiseFruit, t: TFunction): string {
  const grade = f.grade ? t(f.grade) : '–';
  if (!f.size_group) return grade;
  const size = f.size_source === 'area-estimate' ? 'size {{group}}, estimated' : 'size {{group}}';
  return `${grade} (${t(size, { group: f.size_group })})`;
}
