/**
 * The K-Means page's state: classes, the image, the sample regions, the drag in progress, and the
 * runs of the kmeans plugin in a Web Worker. The components only render it.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import i18n from '#web/i18n/index.ts';
import type { KonvaEventObject } from 'konva/lib/Node';
import { KMEANS_UPLOAD, refusalMessage, uploadRefusal, userMessage, type RasterImage } from '@mango/core';
import { decodeImage } from '@mango/core/browser';
import {
  kmeansClassesFile,
  regionBounds,
  type KMeansClassArea,
  type KMeansClassesFile,
  type RgbColor,
} from '@mango/plugin-kmeans';
import type { KMeansRequest, KMeansResponse } from '#web/workers/kmeans.worker.ts';
import { downloadBlob } from '#web/lib/download.ts';
import { hexToRgb } from './colors.ts';

const CLASSES_FILE_NAME = 'kmeans-classes.json';
const RESULTS_FILE_NAME = 'kmeans-results.json';
const MAX_VIEW = { width: 800, height: 600 };

export interface ClassEntry {
  name: string;
  color: RgbColor;
}

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
  classIndex: number;
}

export interface Point {
  x: number;
  y: number;
}

export interface Drag {
  start: Point;
  end: Point;
}

type StageEvent = KonvaEventObject<MouseEvent | TouchEvent>;

const pointer = (e: StageEvent): Point | null => e.target.getStage()?.getPointerPosition() ?? null;

const jsonBlob = (value: unknown) => new Blob([JSON.stringify(value, null, 2) + '\n'], { type: 'application/json' });

export function useKMeans() {
  const [classes, setClasses] = useState<ClassEntry[]>([]);
  const [selected, setSelected] = useState<number | null>(null);
  const [image, setImage] = useState<RasterImage | null>(null);
  const [fileName, setFileName] = useState('');
  const [regions, setRegions] = useState<Region[]>([]);
  const [results, setResults] = useState<KMeansClassArea[] | null>(null);
  const [recoloured, setRecoloured] = useState<RasterImage | null>(null);
  const [drag, setDrag] = useState<Drag | null>(null);
  const [running, setRunning] = useState(false);
  const [elapsed, setElapsed] = useState<number | null>(null);
  const [error, setError] = useState('');

  const worker = useRef<Worker | null>(null);
  const requestId = useRef(0);
  useEffect(() => () => worker.current?.terminate(), []);

  /** Stage pixels per image pixel: the image fits in MAX_VIEW, never enlarged. */
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

  /** Adds a class; an empty name is ignored (spec section 5). Returns whether it was added. */
  const addClass = (rawName: string, hex: string): boolean => {
    const name = rawName.trim();
    if (!name) return false;
    setClasses((list) => [...list, { name, color: hexToRgb(hex) }]);
    return true;
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
      alert(i18n.t(refusalMessage(KMEANS_UPLOAD, refusal) ?? ''));
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

  const onDown = (e: StageEvent) => {
    if (!image) return;
    if (selected === null) {
      console.warn('Select a class before drawing a sample region');
      return;
    }
    const p = pointer(e);
    if (p) setDrag({ start: p, end: p });
  };

  const onMove = (e: StageEvent) => {
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

  const exportClasses = () => downloadBlob(jsonBlob(classesFile()), CLASSES_FILE_NAME);

  const exportResults = () => {
    if (results) downloadBlob(jsonBlob(results), RESULTS_FILE_NAME);
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

  return {
    classes,
    selected,
    setSelected,
    samples,
    addClass,
    image,
    /** the recoloured result once a run is done, else the image */
    shown: recoloured ?? image,
    fileName,
    fit,
    regions,
    drag,
    results,
    running,
    elapsed,
    error,
    onFile,
    clearImage,
    stage: { onDown, onMove, onUp },
    run,
    exportClasses,
    exportResults,
    importClasses,
  };
}

export type KMeansState = ReturnType<typeof useKMeans>;
