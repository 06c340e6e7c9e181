/**
 * /resize: resizes the selected photos in the browser with the resize plugin (the same object the
 * server and CLI run), exports JPEG, then lists them for download, zip or Feature Analysis.
 */
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { createContext, numberLimits, runPlugin, userMessage } from '@mango/core';
import { browserImages, decodeImage, encodeImage } from '@mango/core/browser';
import resize, { heightForWidth, resizeOptions, widthForHeight } from '@mango/plugin-resize';
import Layout from '#web/components/Layout.tsx';
import Dropzone from '#web/components/Dropzone.tsx';
import ConfirmDialog from '#web/components/ConfirmDialog.tsx';
import SelectableImageList from '#web/components/SelectableImageList.tsx';
import { logAction } from '#web/api/client.ts';
import { fileStem } from '#web/lib/download.ts';
import { useImageResults } from '#web/lib/useImageResults.ts';
import '../../tool-pages.css';
import './resize.css';
import { useTranslation } from 'react-i18next';

export const RESIZED_ZIP_NAME = 'resized-images.zip';
const BOTH_DIMENSIONS = 'Please enter both width and height!';
const NO_FILES = 'Please upload images first!';
const TOO_WIDE = 'The width can be at most {{max}} pixels.';
const TOO_TALL = 'The height can be at most {{max}} pixels.';

/** The width and height inputs' limits: the resize plugin's schema's (whole pixels, 1 to its MAX_SIDE). */
export const SIDE_LIMITS = {
  width: numberLimits(resizeOptions.shape.width),
  height: numberLimits(resizeOptions.shape.height),
};

/** A resized image entry (product-spec.md section 3): name, width, height; plus its JPEG. */
interface Resized {
  name: string;
  width: number;
  height: number;
  url: string;
  blob: Blob;
}

export function resizedName(original: string): string {
  return `resized-${fileStem(original)}.jpg`;
}

/** Is `n` over the schema's upper limit? */
const overMax = (n: number, limits: { max?: number }) => limits.max !== undefined && n > limits.max;

/** A positive whole number from an input's text, or undefined. */
function parseSide(text: string): number | undefined {
  const n = Number(text);
  return text.trim() !== '' && Number.isInteger(n) && n > 0 ? n : undefined;
}

/** Natural width / height of an image file, read by the browser's decoder. */
async function aspectOf(file: File): Promise<number | null> {
  try {
    const bitmap = await createImageBitmap(file);
    const ratio = bitmap.width / bitmap.height;
    bitmap.close();
    return ratio;
  } catch {
    return null;
  }
}

export default function Resize() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [files, setFiles] = useState<File[]>([]);
  const [width, setWidth] = useState('');
  const [height, setHeight] = useState('');
  const [keepAspect, setKeepAspect] = useState(false);
  /** width / height kept while Keep Aspect Ratio is on: the first ratio entered. */
  const [ratio, setRatio] = useState<number | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [working, setWorking] = useState(false);
  const [error, setError] = useState('');
  // Object URLs are revoked on Reset and when the page goes away, except those handed to /analysis.
  const results = useImageResults<Resized>();

  /** The ratio to keep: the sides already typed, else the first photo's own proportions. */
  const fixRatio = async (): Promise<number | null> => {
    const w = parseSide(width);
    const h = parseSide(height);
    if (w && h) return w / h;
    return files.length > 0 ? aspectOf(files[0]) : null;
  };

  const toggleKeepAspect = async (on: boolean) => {
    setKeepAspect(on);
    if (!on) {
      setRatio(null);
      return;
    }
    const r = await fixRatio();
    setRatio(r);
    if (r === null) return;
    const w = parseSide(width);
    const h = parseSide(height);
    if (w && !h) setHeight(String(heightForWidth(w, r)));
    else if (h && !w) setWidth(String(widthForHeight(h, r)));
  };

  const onWidth = async (text: string) => {
    setWidth(text);
    if (!keepAspect) return;
    let r = ratio;
    if (r === null) {
      r = files.length > 0 ? await aspectOf(files[0]) : null;
      setRatio(r);
    }
    const w = parseSide(text);
    if (r !== null && w) setHeight(String(heightForWidth(w, r)));
  };

  const onHeight = async (text: string) => {
    setHeight(text);
    if (!keepAspect) return;
    let r = ratio;
    if (r === null) {
      r = files.length > 0 ? await aspectOf(files[0]) : null;
      setRatio(r);
    }
    const h = parseSide(text);
    if (r !== null && h) setWidth(String(widthForHeight(h, r)));
  };

  const onResize = () => {
    const w = parseSide(width);
    const h = parseSide(height);
    if (!w || !h) {
      alert(t(BOTH_DIMENSIONS));
      return;
    }
    if (overMax(w, SIDE_LIMITS.width)) {
      alert(t(TOO_WIDE, { max: SIDE_LIMITS.width.max }));
      return;
    }
    if (overMax(h, SIDE_LIMITS.height)) {
      alert(t(TOO_TALL, { max: SIDE_LIMITS.height.max }));
      return;
    }
    if (files.length === 0) {
      alert(t(NO_FILES));
      return;
    }
    setConfirming(true);
  };

  const run = async () => {
    setConfirming(false);
    setWorking(true);
    setError('');
    // The plugin's options, its schema's defaults (JPEG quality) filled in. Keep Aspect Ratio: the
    // fields hold the first ratio entered (the first photo's); each photo is fitted within that
    // width x height keeping its own ratio (plugins/resize/README.md).
    const options = resizeOptions.parse({ width: parseSide(width), height: parseSide(height), keepAspect });
    const ctx = createContext(browserImages);
    const done: Resized[] = [];
    const failures: string[] = [];
    for (const file of files) {
      try {
        const image = await decodeImage(new Uint8Array(await file.arrayBuffer()), file.name);
        const out = await runPlugin(resize, image, options, ctx);
        const jpeg = await encodeImage(out.image, 'jpeg', { quality: options.quality });
        const blob = new Blob([jpeg as BlobPart], { type: 'image/jpeg' });
        const url = results.objectUrl(blob);
        done.push({ name: resizedName(file.name), width: out.width, height: out.height, url, blob });
      } catch (e) {
        console.error(`Resize failed for ${file.name}:`, e);
        failures.push(`${file.name}: ${userMessage(e)}`);
      }
    }
    if (done.length > 0) {
      results.add(done);
      void logAction('Resize');
    }
    if (failures.length > 0) setError(`Could not resize ${failures.join('; ')}`);
    setWorking(false);
  };

  const sendToAnalysis = () => {
    const chosen = results.chosen(true);
    if (!chosen) return;
    navigate('/analysis', { state: { images: chosen.map((r) => ({ url: r.url, name: r.name })) } });
  };

  const reset = () => {
    results.reset();
    setFiles([]);
    setWidth('');
    setHeight('');
    setKeepAspect(false);
    setRatio(null);
    setError('');
  };

  return (
    <Layout>
      <section className="tool-page">
        <div className="resize-head">
          <h1>{t('Resize Image')}</h1>
          <Link to="/crop" className="btn btn-secondary">
            {t('Crop Image')}
          </Link>
        </div>
        <p className="tool-intro">
          {t(
            'Resize photos to an exact width and height. Resizing happens in your browser; the results are JPEG files.',
          )}
        </p>
        <div className="card">
          <Dropzone files={files} onChange={setFiles} />
          <div className="resize-settings">
            <label>
              {t('Width (px)')}
              <input
                type="number"
                min={SIDE_LIMITS.width.min}
                max={SIDE_LIMITS.width.max}
                step={SIDE_LIMITS.width.step}
                inputMode="numeric"
                value={width}
                placeholder={t('Width')}
                onChange={(e) => void onWidth(e.target.value)}
              />
            </label>
            <label>
              {t('Height (px)')}
              <input
                type="number"
                min={SIDE_LIMITS.height.min}
                max={SIDE_LIMITS.height.max}
                step={SIDE_LIMITS.height.step}
                inputMode="numeric"
                value={height}
                placeholder={t('Height')}
                onChange={(e) => void onHeight(e.target.value)}
              />
            </label>
            <label className="resize-keep">
              <input type="checkbox" checked={keepAspect} onChange={(e) => void toggleKeepAspect(e.target.checked)} />{' '}
              {t('Keep Aspect Ratio')}
            </label>
          </div>
          {error && (
            <div className="alert" role="alert">
              {t(error)}
            </div>
          )}
          <div className="tool-actions">
            <button type="button" className="btn btn-secondary" onClick={reset} disabled={working}>
              {t('Reset')}
            </button>
            <button type="button" className="btn btn-primary" onClick={onResize} disabled={working}>
              {t(working ? 'Resizing...' : 'Resize')}
            </button>
          </div>
        </div>

        <SelectableImageList
          title={t('Resized images')}
          items={results.items}
          selected={results.selected}
          onSelectedChange={results.setSelected}
          classPrefix="resized"
          altPrefix="Resized"
          zipName={RESIZED_ZIP_NAME}
          onSendToAnalysis={sendToAnalysis}
          details={(r) => (
            <span className="resized-size" data-testid="resized-size">
              {r.width} x {r.height}
            </span>
          )}
        />
      </section>
      <ConfirmDialog
        open={confirming}
        title={t('Confirm resize')}
        message={t(
          files.length === 1
            ? 'Resize 1 image to {{width}} x {{height}} pixels?'
            : keepAspect
              ? 'Resize {{count}} images to fit within {{width}} x {{height}} pixels, each keeping its own aspect ratio?'
              : 'Resize {{count}} images to {{width}} x {{height}} pixels?',
          { count: files.length, width, height },
        )}
        onConfirm={() => void run()}
        onCancel={() => setConfirming(false)}
      />
    </Layout>
  );
}
