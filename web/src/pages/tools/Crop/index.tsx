/**
 * /crop: one photo, a fixed 4:3 crop box, zoom 1-3, rotation in 15 degree steps. The output is made by
 * the crop plugin (the same object the server and CLI run) and saved as cropped-image.png.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { Image as KonvaImage, Layer, Rect, Stage } from 'react-konva';
import { CROP_UPLOAD, createContext, runPlugin, userMessage, type RasterImage } from '@mango/core';
import { browserImages, decodeImage, encodeImage } from '@mango/core/browser';
import crop from '@mango/plugin-crop';
import Layout from '#web/components/Layout.tsx';
import ConfirmDialog from '#web/components/ConfirmDialog.tsx';
import { logAction } from '#web/api/client.ts';
import { downloadBlob } from '#web/lib/download.ts';
import { rasterToCanvas } from '#web/lib/canvas.ts';
import FilePickerButton from '#web/components/FilePickerButton.tsx';
import {
  BOX,
  ROTATE_STEP,
  STAGE,
  ZOOM,
  clampCentre,
  cropRectangle,
  initialView,
  scaleOf,
  type View,
} from './geometry.ts';
import '../../tool-pages.css';
import './crop.css';
import { useTranslation } from 'react-i18next';

export const CROPPED_NAME = 'cropped-image.png';
const NO_IMAGE = 'Please upload an image first!';

export default function Crop() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [fileName, setFileName] = useState('');
  const [raster, setRaster] = useState<RasterImage | null>(null);
  const [view, setView] = useState<View>(initialView);
  const [dialog, setDialog] = useState(false);
  const [working, setWorking] = useState(false);
  const [error, setError] = useState('');
  const canvas = useMemo(() => (raster ? rasterToCanvas(raster) : null), [raster]);
  const sentUrl = useRef<string | null>(null);
  useEffect(() => () => void (sentUrl.current && URL.revokeObjectURL(sentUrl.current)), []);

  const w = raster?.width ?? 1;
  const h = raster?.height ?? 1;
  const scale = scaleOf(w, h, view);
  const rect = raster ? cropRectangle(w, h, view) : null;

  /** Applies a change of zoom, rotation or position and keeps the crop box on the image. */
  const update = (next: Partial<View>) =>
    setView((v) => {
      const merged = { ...v, ...next };
      return { ...merged, ...clampCentre(w, h, merged) };
    });

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    setError('');
    try {
      const image = await decodeImage(new Uint8Array(await file.arrayBuffer()), file.name);
      setRaster(image);
      setFileName(file.name);
      setView(initialView());
    } catch (e) {
      console.error('Could not read the image:', e);
      setError(userMessage(e));
    }
  };

  const onSaved = () => {
    if (!raster) {
      alert(t(NO_IMAGE));
      return;
    }
    setDialog(true);
  };

  /** Crops with the plugin, downloads the png and returns it. */
  const save = async (): Promise<Blob | null> => {
    if (!raster || !rect) return null;
    setWorking(true);
    try {
      const out = await runPlugin(crop, raster, rect, createContext(browserImages));
      const png = await encodeImage(out.image, 'png');
      const blob = new Blob([png as BlobPart], { type: 'image/png' });
      downloadBlob(blob, CROPPED_NAME);
      void logAction('Crop');
      return blob;
    } catch (e) {
      console.error('Crop failed:', e);
      setError(userMessage(e));
      return null;
    } finally {
      setWorking(false);
      setDialog(false);
    }
  };

  const saveAndSend = async () => {
    const blob = await save();
    if (!blob) return;
    const url = URL.createObjectURL(blob);
    navigate('/analysis', { state: { images: [{ url, name: CROPPED_NAME }] } });
  };

  return (
    <Layout>
      <section className="tool-page">
        <h1>{t('Image Cropper')}</h1>
        <div className="card crop-card">
          <div className="crop-upload">
            <FilePickerButton accept={CROP_UPLOAD.accept} testId="file-input" onFile={(f) => void onFile(f)}>
              {t(raster ? 'Change Image' : 'Upload Image')}
            </FilePickerButton>
            <span className="crop-file">{fileName}</span>
            <p className="crop-hint">{t('Supports JPG, PNG, WEBP (Max 5MB)')}</p>
          </div>
          {error && (
            <div className="alert" role="alert">
              {t(error)}
            </div>
          )}
          <div
            className="crop-stage"
            data-testid="crop-stage"
            tabIndex={raster ? 0 : -1}
            aria-label={t('Crop area: drag the image or use the arrow keys to move it')}
            onKeyDown={(e) => {
              const step = e.shiftKey ? 40 : 8;
              const move: Record<string, [number, number]> = {
                ArrowLeft: [-step, 0],
                ArrowRight: [step, 0],
                ArrowUp: [0, -step],
                ArrowDown: [0, step],
              };
              const d = move[e.key];
              if (!raster || !d) return;
              e.preventDefault();
              update({ cx: view.cx + d[0], cy: view.cy + d[1] });
            }}
            onDragOver={(e) => e.preventDefault()}
            onDrop={(e) => {
              e.preventDefault();
              void onFile(e.dataTransfer.files[0]);
            }}
          >
            <Stage width={STAGE.width} height={STAGE.height}>
              <Layer>
                {canvas && (
                  <KonvaImage
                    image={canvas}
                    x={view.cx}
                    y={view.cy}
                    offsetX={w / 2}
                    offsetY={h / 2}
                    scaleX={scale}
                    scaleY={scale}
                    rotation={view.rotate}
                    draggable
                    dragBoundFunc={(pos) => {
                      const c = clampCentre(w, h, { ...view, cx: pos.x, cy: pos.y });
                      return { x: c.cx, y: c.cy };
                    }}
                    onDragEnd={(e) => update({ cx: e.target.x(), cy: e.target.y() })}
                  />
                )}
              </Layer>
              <Layer listening={false}>
                {/* Shade outside the crop box, then its outline. */}
                <Rect x={0} y={0} width={STAGE.width} height={BOX.y} fill="rgba(0,0,0,0.5)" />
                <Rect
                  x={0}
                  y={BOX.y + BOX.height}
                  width={STAGE.width}
                  height={STAGE.height - BOX.y - BOX.height}
                  fill="rgba(0,0,0,0.5)"
                />
                <Rect x={0} y={BOX.y} width={BOX.x} height={BOX.height} fill="rgba(0,0,0,0.5)" />
                <Rect
                  x={BOX.x + BOX.width}
                  y={BOX.y}
                  width={STAGE.width - BOX.x - BOX.width}
                  height={BOX.height}
                  fill="rgba(0,0,0,0.5)"
                />
                <Rect x={BOX.x} y={BOX.y} width={BOX.width} height={BOX.height} stroke="#ffffff" strokeWidth={2} />
              </Layer>
            </Stage>
          </div>
          <div className="crop-controls">
            <label className="crop-zoom">
              {t('Zoom')}
              <input
                type="range"
                aria-label={t('Zoom')}
                min={ZOOM.min}
                max={ZOOM.max}
                step={ZOOM.step}
                value={view.zoom}
                onChange={(e) => update({ zoom: Number(e.target.value) })}
              />
              <span data-testid="zoom-value">{view.zoom.toFixed(1)}x</span>
            </label>
            <button
              type="button"
              className="btn btn-secondary"
              onClick={() => update({ rotate: (view.rotate + ROTATE_STEP) % 360 })}
            >
              {t('Rotate {{step}}°', { step: ROTATE_STEP })}
            </button>
            <span className="crop-info" data-testid="crop-info">
              {rect
                ? t('{{width}} x {{height}} px at ({{x}}, {{y}}), rotated {{rotate}}°', {
                    ...rect,
                    rotate: view.rotate,
                  })
                : t('No image')}
            </span>
          </div>
          <div className="tool-actions">
            <button type="button" className="btn btn-secondary" onClick={() => setView(initialView())}>
              {t('Reset')}
            </button>
            <button type="button" className="btn btn-primary" onClick={onSaved} disabled={working}>
              {t('Saved')}
            </button>
          </div>
        </div>
      </section>
      <ConfirmDialog
        open={dialog}
        title={t('Save cropped image')}
        message={t('Download the cropped image, or download it and send it to Feature Analysis.')}
        onConfirm={() => void save()}
        onCancel={() => setDialog(false)}
      >
        <button type="button" className="btn btn-secondary" onClick={() => setDialog(false)} disabled={working}>
          {t('Cancel')}
        </button>
        <button type="button" className="btn btn-secondary" onClick={() => void save()} disabled={working}>
          {t('Download Only')}
        </button>
        <button type="button" className="btn btn-primary" onClick={() => void saveAndSend()} disabled={working}>
          {t('Download & Send to Analysis')}
        </button>
      </ConfirmDialog>
    </Layout>
  );
}
