/**
 * /k-means (public): define colour classes by dragging sample rectangles on a photo, then run the
 * kmeans plugin in a Web Worker; the canvas is recoloured and the 'Class Area %' table filled. The
 * classes file exported and imported here is the one `mango kmeans --classes` reads. Public page:
 * no guard and no Layout, only the navigation bar.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { Image as KonvaImage, Layer, Rect, Stage } from 'react-konva';
import type { KonvaEventObject } from 'konva/lib/Node';
import { KMEANS_UPLOAD, refusalMessage, uploadRefusal, userMessage, type RasterImage } from '@mango/core';
import { decodeImage, toImageData } from '@mango/core/browser';
import {
  kmeansClassesFile,
  regionBounds,
  type KMeansClassArea,
  type KMeansClassesFile,
  type RgbColor,
} from '@mango/plugin-kmeans';
import type { KMeansRequest, KMeansResponse } from '#web/workers/kmeans.worker.ts';
import NavBar from '#web/components/NavBar.tsx';
import { downloadBlob } from '#web/lib/download.ts';
import '../../tool-pages.css';
import './kmeans.css';

const CLASSES_FILE_NAME = 'kmeans-classes.json';
const RESULTS_FILE_NAME = 'kmeans-results.json';
const OUTLINE_WIDTH = 2;
const MAX_VIEW = { width: 800, height: 600 };

interface ClassEntry {
  name: string;
  color: RgbColor;
}

interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
  classIndex: number;
}

interface Point {
  x: number;
  y: number;
}

export function hexToRgb(hex: string): RgbColor {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  return m ? [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)] : [255, 0, 0];
}

const css = (c: RgbColor) => `rgb(${c[0]}, ${c[1]}, ${c[2]})`;

function toCanvas(image: RasterImage): HTMLCanvasElement {
  const c = document.createElement('canvas');
  c.width = image.width;
  c.height = image.height;
  c.getContext('2d')?.putImageData(toImageData(image), 0, 0);
  return c;
}

export default function KMeans() {
  const fileInput = useRef<HTMLInputElement>(null);
  const classesInput = useRef<HTMLInputElement>(null);
  const [classes, setClasses] = useState<ClassEntry[]>([]);
  const [selected, setSelected] = useState<number | null>(null);
  const [newName, setNewName] = useState('');
  const [newColor, setNewColor] = useState('#ff0000');
  const [image, setImage] = useState<RasterImage | null>(null);
  const [fileName, setFileName] = useState('');
  const [regions, setRegions] = useState<Region[]>([]);
  const [results, setResults] = useState<KMeansClassArea[] | null>(null);
  const [recoloured, setRecoloured] = useState<RasterImage | null>(null);
  const [drag, setDrag] = useState<{ start: Point; end: Point } | null>(null);
  const [running, setRunning] = useState(false);
  const [elapsed, setElapsed] = useState<number | null>(null);
  const [error, setError] = useState('');

  const worker = useRef<Worker | null>(null);
  const requestId = useRef(0);
  useEffect(() => () => worker.current?.terminate(), []);

  const shown = recoloured ?? image;
  const canvas = useMemo(() => (shown ? toCanvas(shown) : null), [shown]);
  const fit = image ? Math.min(1, MAX_VIEW.width / image.width, MAX_VIEW.height / image.height) : 1;

  /** Sample pixels per class: every rectangle's pixels inside the image (as the plugin counts them). */
  const samples = useMemo(() => {
    const counts = classes.map(() => 0);
    if (!image) return counts;
    for (const r of regions) {
      const b = regionBounds(r, image.width, image.height);
      if (b && counts[r.classIndex] !== undefined) counts[r.classIndex] += (b.x1 - b.x0) * (b.y1 - b.y0);
    }
    return counts;
  }, [classes, regions, image]);

  const addClass = () => {
    const name = newName.trim();
    if (!name) return; // an empty name is ignored (spec section 5)
    setClasses((list) => [...list, { name, color: hexToRgb(newColor) }]);
    setNewName('');
  };

  const clearImage = () => {
    requestId.current++; // a run still in the worker answers for an image that is gone: ignore it
    setRunning(false);
    setImage(null);
    setFileName('');
    setRegions([]);
    setResults(null);
    setRecoloured(null);
    setDrag(null);
    setElapsed(null);
    setError('');
  };

  const onFile = async (file: File | undefined) => {
    if (!(file instanceof File)) {
      console.error('No valid file selected');
      return;
    }
    const refusal = uploadRefusal(KMEANS_UPLOAD, file);
    if (refusal) {
      alert(refusalMessage(KMEANS_UPLOAD, refusal));
      return;
    }
    try {
      const decoded = await decodeImage(new Uint8Array(await file.arrayBuffer()), file.name);
      // Changing the image drops the regions drawn on the old one; a first image keeps the regions of
      // a classes file imported before it.
      if (image) clearImage();
      else {
        setResults(null);
        setRecoloured(null);
        setError('');
      }
      setImage({ width: decoded.width, height: decoded.height, data: decoded.data });
      setFileName(file.name);
    } catch (e) {
      console.error('Failed to load the image:', e);
      setError(userMessage(e));
    }
  };

  const pointer = (e: KonvaEventObject<MouseEvent | TouchEvent>): Point | null =>
    e.target.getStage()?.getPointerPosition() ?? null;

  const onDown = (e: KonvaEventObject<MouseEvent | TouchEvent>) => {
    if (!image) return;
    if (selected === null) {
      console.warn('Select a class before drawing a sample region');
      return;
    }
    const p = pointer(e);
    if (p) setDrag({ start: p, end: p });
  };

  const onMove = (e: KonvaEventObject<MouseEvent | TouchEvent>) => {
    if (!drag) return;
    const p = pointer(e);
    if (p) setDrag({ ...drag, end: p });
  };

  const onUp = () => {
    if (!drag || !image || selected === null) {
      setDrag(null);
      return;
    }
    // Stage to image pixels, clipped to the image.
    const clip = (v: number, max: number) => Math.max(0, Math.min(max, v / fit));
    const x0 = clip(Math.min(drag.start.x, drag.end.x), image.width);
    const x1 = clip(Math.max(drag.start.x, drag.end.x), image.width);
    const y0 = clip(Math.min(drag.start.y, drag.end.y), image.height);
    const y1 = clip(Math.max(drag.start.y, drag.end.y), image.height);
    setDrag(null);
    if (x1 - x0 < 1 || y1 - y0 < 1) return; // selections under 1 pixel are ignored
    const x = Math.floor(x0);
    const y = Math.floor(y0);
    const width = Math.floor(x1) - x;
    const height = Math.floor(y1) - y;
    if (width < 1 || height < 1) return;
    setRegions((list) => [...list, { x, y, width, height, classIndex: selected }]);
  };

  const classesFile = (): KMeansClassesFile => ({
    classes: classes.map((c, k) => ({
      name: c.name,
      color: c.color,
      regions: regions
        .filter((r) => r.classIndex === k)
        .map((r) => ({ x: r.x, y: r.y, width: r.width, height: r.height })),
    })),
  });

  const run = () => {
    if (!image || classes.length === 0 || regions.length === 0) return;
    setError('');
    setRunning(true);
    if (!worker.current) {
      worker.current = new Worker(new URL('../../../workers/kmeans.worker.ts', import.meta.url), { type: 'module' });
    }
    const id = ++requestId.current;
    const w = worker.current;
    w.onmessage = (event: MessageEvent<KMeansResponse>) => {
      const reply = event.data;
      if (reply.id !== requestId.current) return;
      setRunning(false);
      if (!reply.ok) {
        console.error('K-Means failed:', reply.error);
        setError(reply.error);
        return;
      }
      setResults(reply.classes);
      setRecoloured(reply.recoloured);
      setElapsed(reply.ms);
    };
    w.onerror = (event) => {
      console.error('K-Means worker error:', event.message);
      setRunning(false);
      setError('K-Means failed to run. Please try again.');
    };
    const request: KMeansRequest = { id, image, classes: classesFile().classes };
    w.postMessage(request);
  };

  const exportClasses = () => {
    const body = JSON.stringify(classesFile(), null, 2) + '\n';
    downloadBlob(new Blob([body], { type: 'application/json' }), CLASSES_FILE_NAME);
  };

  const exportResults = () => {
    if (!results) return;
    downloadBlob(new Blob([JSON.stringify(results, null, 2) + '\n'], { type: 'application/json' }), RESULTS_FILE_NAME);
  };

  const importClasses = async (file: File | undefined) => {
    if (!file) return;
    let parsed: KMeansClassesFile;
    try {
      const check = kmeansClassesFile.safeParse(JSON.parse(await file.text()));
      if (!check.success)
        throw new Error(check.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      parsed = check.data;
    } catch (e) {
      console.error('Invalid classes file:', e);
      setError(`Invalid classes file: ${userMessage(e)}`);
      return;
    }
    setError('');
    requestId.current++;
    setRunning(false);
    setClasses(parsed.classes.map((c) => ({ name: c.name, color: c.color })));
    setRegions(parsed.classes.flatMap((c, k) => c.regions.map((r) => ({ ...r, classIndex: k }))));
    setSelected(null);
    setResults(null);
    setRecoloured(null);
  };

  const drawColor = selected !== null && classes[selected] ? css(classes[selected].color) : '#ffffff';

  return (
    <div className="kmeans-page">
      {/* The shared navigation bar: on /k-means nothing is highlighted and the avatar's menu is empty. */}
      <NavBar />
      <main className="page tool-page">
        <h1>K-Means Clustering</h1>
        <p className="tool-intro">
          Add a class for each kind of surface, select it, and drag rectangles over examples of it on the image. Run
          K-Means to split the whole image into those classes. Everything runs in your browser.
        </p>
        <div className="kmeans-grid">
          <aside className="card kmeans-classes" aria-label="Class manager">
            <h2>Classes</h2>
            <form
              className="kmeans-add"
              onSubmit={(e) => {
                e.preventDefault();
                addClass();
              }}
            >
              <input
                type="text"
                placeholder="Class name"
                aria-label="Class name"
                value={newName}
                onChange={(e) => setNewName(e.target.value)}
              />
              <input
                type="color"
                aria-label="Class colour"
                value={newColor}
                onChange={(e) => setNewColor(e.target.value)}
              />
              <button type="submit" className="btn btn-secondary">
                Add Class
              </button>
            </form>
            {classes.length === 0 ? (
              <p className="tool-status">No classes yet.</p>
            ) : (
              <ul className="kmeans-class-list">
                {classes.map((c, k) => (
                  <li key={`${c.name}-${k}`}>
                    <button
                      type="button"
                      className={k === selected ? 'kmeans-class kmeans-class-on' : 'kmeans-class'}
                      aria-pressed={k === selected}
                      onClick={() => setSelected(k)}
                    >
                      <span className="kmeans-swatch" style={{ background: css(c.color) }} />
                      <span className="kmeans-class-name">{c.name}</span>
                      <span className="kmeans-samples">{samples[k] ?? 0} samples</span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
            <div className="kmeans-file-actions">
              <button type="button" className="btn btn-secondary btn-small" onClick={exportClasses}>
                Export Classes
              </button>
              <button
                type="button"
                className="btn btn-secondary btn-small"
                onClick={() => classesInput.current?.click()}
              >
                Import Classes
              </button>
              <input
                ref={classesInput}
                type="file"
                accept=".json,application/json"
                hidden
                data-testid="classes-input"
                onChange={(e) => {
                  void importClasses(e.target.files?.[0]);
                  e.target.value = '';
                }}
              />
            </div>
          </aside>

          <section className="card kmeans-canvas-card" aria-label="Image">
            <div className="kmeans-image-actions">
              <button type="button" className="btn btn-secondary" onClick={() => fileInput.current?.click()}>
                {image ? 'Change Image' : 'Upload Image'}
              </button>
              {image && (
                <button type="button" className="btn btn-danger" onClick={clearImage}>
                  Delete Image
                </button>
              )}
              <span className="kmeans-file-name">
                {fileName}
                {image ? ` (${image.width} x ${image.height})` : ''}
              </span>
              <input
                ref={fileInput}
                type="file"
                accept={KMEANS_UPLOAD.accept}
                hidden
                data-testid="file-input"
                onChange={(e) => {
                  void onFile(e.target.files?.[0]);
                  e.target.value = '';
                }}
              />
            </div>
            {error && (
              <div className="alert" role="alert">
                {error}
              </div>
            )}
            {image && canvas ? (
              <div className="kmeans-stage" data-testid="kmeans-stage">
                <Stage
                  width={Math.round(image.width * fit)}
                  height={Math.round(image.height * fit)}
                  onMouseDown={onDown}
                  onMouseMove={onMove}
                  onMouseUp={onUp}
                  onTouchStart={onDown}
                  onTouchMove={onMove}
                  onTouchEnd={onUp}
                >
                  <Layer>
                    <KonvaImage image={canvas} scaleX={fit} scaleY={fit} />
                  </Layer>
                  <Layer listening={false}>
                    {regions.map((r, i) => (
                      <Rect
                        key={i}
                        x={r.x * fit}
                        y={r.y * fit}
                        width={r.width * fit}
                        height={r.height * fit}
                        stroke={classes[r.classIndex] ? css(classes[r.classIndex].color) : '#ffffff'}
                        strokeWidth={OUTLINE_WIDTH}
                      />
                    ))}
                    {drag && (
                      <Rect
                        x={Math.min(drag.start.x, drag.end.x)}
                        y={Math.min(drag.start.y, drag.end.y)}
                        width={Math.abs(drag.end.x - drag.start.x)}
                        height={Math.abs(drag.end.y - drag.start.y)}
                        stroke={drawColor}
                        strokeWidth={OUTLINE_WIDTH}
                        dash={[6, 4]}
                      />
                    )}
                  </Layer>
                </Stage>
              </div>
            ) : (
              <div className="empty-state">Upload a JPG or PNG image (max 5MB) to start.</div>
            )}
            <div className="tool-actions">
              {selected === null && <span className="tool-status">Select a class to draw samples and run.</span>}
              <button type="button" className="btn btn-primary" onClick={run} disabled={selected === null || running}>
                {running ? 'Running...' : 'Run K-Means Clustering'}
              </button>
            </div>
          </section>
        </div>

        {results && (
          <section className="card kmeans-results" aria-labelledby="kmeans-results-title">
            <div className="kmeans-results-head">
              <h2 id="kmeans-results-title">Class Area %</h2>
              <button type="button" className="btn btn-secondary btn-small" onClick={exportResults}>
                Export Results
              </button>
            </div>
            <table className="results-table" data-testid="kmeans-results">
              <thead>
                <tr>
                  <th>Class</th>
                  <th>Color</th>
                  <th className="num">Percentage</th>
                </tr>
              </thead>
              <tbody>
                {results.map((r, k) => (
                  <tr key={`${r.name}-${k}`}>
                    <td>{r.name}</td>
                    <td>
                      <span className="kmeans-swatch" style={{ background: css(r.color) }} /> {css(r.color)}
                    </td>
                    <td className="num">{r.percent}%</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {elapsed !== null && <p className="tool-status">Computed in {Math.round(elapsed)} ms.</p>}
          </section>
        )}
      </main>
    </div>
  );
}
