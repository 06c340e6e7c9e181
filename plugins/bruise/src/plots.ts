/**
 * What the run plots draw of a bruise result (core/src/plots.ts reads this declaration; issue 24):
 * each photo's bruise %, and each fruit's bruised area against its area, in cm² when the photos had a
 * scale. The words are the charts' English; their Thai is BRUISE_TH (th.ts), which the reports and the
 * web app (i18n/th.ts) use.
 */
import type { PlotFields } from '@mango/core/plots';
import { BRUISE_TH } from './th.ts';

export const BRUISE_PLOTS: PlotFields = Object.freeze<PlotFields>({
  value: 'bruise_percent',
  // a bruise result (the features plugin's fruit may carry a bruise % too)
  requires: ['total_mango_pixels'],
  objects: 'fruits',
  x: {
    name: 'fruit_area',
    px: 'pixels',
    cm2: 'area_cm2',
    title: { px: 'fruit area (pixels)', cm2: 'fruit area (cm²)' },
  },
  y: {
    name: 'lesion_area',
    px: 'bruise_pixels',
    cm2: 'bruise_area_cm2',
    title: { px: 'lesion area (pixels)', cm2: 'lesion area (cm²)' },
  },
  // a share of the fruit's area: a mean's interval is clipped to it
  bounds: [0, 100],
  text: {
    byColumn: 'Bruise % by {{column}}',
    allPhotos: 'Bruise % of the photos',
    axis: 'bruise % of the fruit area',
    boxDescription: 'Box plot of bruise % of {{n}} photos in {{groups}} groups by {{column}}.',
    groupOne: '{{group}}: n = {{n}}, mean {{mean}} % (no interval from one photo).',
    groupInterval: '{{group}}: n = {{n}}, mean {{mean}} %, 95 % interval {{low}} to {{high}} %.',
    value: 'Bruise %',
    mean: 'Mean bruise %',
    timePerObject: 'Bruise % over {{time}}, per fruit',
    timePerGroup: 'Mean bruise % over {{time}}, per group',
    timeDescription: 'Line chart of bruise % against {{time}}: {{lines}} lines ({{by}}), {{points}} points.',
    scatter: 'Lesion area against fruit area',
    scatterDescription: 'Scatter plot of {{n}} fruit: {{y}} against {{x}}.',
    object: 'Fruit',
  },
  translations: { th: BRUISE_TH },
});
