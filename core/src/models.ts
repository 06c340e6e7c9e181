/**
 * The model loader plugins receive as ctx.models. Models are named in models/manifest.json and
 * loaded by id, never by path. The Node implementation (onnxruntime-node) lives in @mango/models.
 */
export interface ModelManifestEntry {
  id: string;
  /** what the model does, e.g. 'bruise-segmentation' */
  task: string;
  file: string;
  sha256: string;
  license: string;
  input: {
    name?: string;
    width: number;
    height: number;
    layout: 'NCHW';
    mean: number[];
    std: number[];
    /** a fourth input channel holds the fruit mask (0 or 1) */
    fruit_channel?: boolean;
    /**
     * 'fruit-square': each fruit is cut out as a square around its box and fed alone; 'two-stage': the
     * model finds the fruit itself (a `fruit` output class): first on the whole picture, then on each
     * fruit's square, where it gives the fruit outline and the lesions; else ('whole') the whole picture
     */
    crop?: 'whole' | 'fruit-square' | 'two-stage';
  };
  /**
   * Test-time augmentation: the model is run on these views and its logits averaged (mapped back), so
   * the result does not depend on how the photo was turned. Default: 'identity' only. The four quarter
   * turns (identity, rot90, rot180, rot270) are a group: a photo turned by a quarter gives the same set
   * of views, so the average is the same up to resampling.
   */
  tta?: TtaView[];
  /** The views of a two-stage model's first look (the whole picture, which places the fruit). Default: 'identity' only. */
  tta_first?: TtaView[];
  output: { name?: string; classes: string[]; activation?: 'logit' | 'probability' | 'scores' };
  card?: string;
}

/**
 * A test-time view of a square input: rot90 / rot180 / rot270 turn counter-clockwise, as numpy's rot90;
 * flip-h and flip-v mirror left-right and top-bottom; transpose mirrors across the main diagonal
 * (x and y swapped), anti-transpose across the other. The eight together are the symmetries of a square.
 */
export const TTA_VIEWS = [
  'identity',
  'flip-h',
  'flip-v',
  'rot90',
  'rot180',
  'rot270',
  'transpose',
  'anti-transpose',
] as const;
export type TtaView = (typeof TTA_VIEWS)[number];

/**
 * The four quarter turns: a group, so a photo turned by a quarter is seen through the same four views and
 * the averaged result is the same up to resampling (the shipped model's `tta` and `tta_first`).
 */
export const QUARTER_TURNS: readonly TtaView[] = ['identity', 'rot90', 'rot180', 'rot270'];

export interface Tensor {
  data: Float32Array;
  dims: number[];
}

export interface LoadedModel {
  entry: ModelManifestEntry;
  run(input: Tensor): Promise<Tensor>;
}

export interface ModelLoader {
  /** Installed models for a task (the file exists and its sha256 matches). */
  available(task: string): Promise<ModelManifestEntry[]>;
  load(id: string): Promise<LoadedModel>;
}

export const noModels: ModelLoader = {
  available: async () => [],
  load: async (id: string) => {
    const { MangoError } = await import('./errors.ts');
    throw new MangoError('MODEL_NOT_FOUND', `model ${id} is not installed`);
  },
};
