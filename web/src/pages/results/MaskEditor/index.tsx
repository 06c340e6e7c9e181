/**
 * The mask editor of one photo of a stored run (issue 28): the kept photo with its fruit and lesion
 * masks (its latest truth, or the model's masks), layers shown or hidden with an opacity, brush and
 * eraser with a size, polygon (click points, double-click to close), magic wand (the 4-connected region
 * of the model's lesion probability at or above a threshold, `bruise-probability`), delete a whole
 * lesion, one fruit selected to limit every tool to it (its live row and grade beside), zoom
 * with the wheel, pan by dragging (pan tool), fit, undo/redo (Ctrl+Z / Ctrl+Shift+Z), pointer
 * events (mouse, pen, touch). The figures update live with the plugin's own counting
 * (`figuresOfMasks`); Save stores the masks at the photo's size as a new version of its truth.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { Image as KonvaImage, Layer, Line, Stage } from 'react-konva';
import type Konva from 'konva';
import { useTranslation } from 'react-i18next';
import {
  decodeCocoRle,
  encodeCocoRle,
  fitSize,
  labelComponents,
  resizeMaskNearest,
  type CocoRle,
  type RasterImage,
} from '@mango/core';
import { figuresOfMasks } from '@mango/plugin-bruise/corrected';
import { apiFetch } from '#web/api/client.ts';
import { useFormat } from '#web/i18n/index.ts';
import { fruitGradeText } from '#web/lib/fruitGrade.ts';
import { itemBase, loadKeptPhoto, rasterAt } from '#web/lib/keptPhoto.ts';
import { growRegion, limitTo } from './regions.ts';
import { editorGradeRules, liveFruitRows } from './grades.ts';
import './mask-editor.css';

/** The long side of the copy the masks are edited on (counts are upsampled to the photo exactly). */
const WORK_SIDE = 1024;
const HISTORY = 30;
const STAGE_WIDTH = 760;
/**
 * The drawing area: 760 px wide, or the room there is (a phone), as tall as the photo at that width
 * (240 to 520 px at 760 px wide, the lower bound narrowing with the width), no empty band.
 */
const stageFor = (w: number, h: number, room = STAGE_WIDTH) => {
  const width = Math.max(160, Math.min(STAGE_WIDTH, Math.floor(room)));
  const least = (240 * width) / STAGE_WIDTH;
  return { width, height: w > 0 ? Math.round(Math.min(520, Math.max(least, (width * h) / w))) : 520 };
};

type LayerName = 'fruit' | 'lesion';
type Tool = 'brush' | 'eraser' | 'polygon' | 'wand' | 'delete' | 'pan';
interface Masks {
  fruit: Uint8Array;
  lesion: Uint8Array;
}

const COLOURS: Record<LayerName, [number, number, number]> = { fruit: [40, 200, 90], lesion: [230, 40, 160] };

function maskCanvas(mask: Uint8Array, width: number, height: number, rgb: [number, number, number]) {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d')!;
  const img = ctx.createImageData(width, height);
  for (let i = 0; i < mask.length; i++)
    if (mask[i]) {
      img.data[i * 4] = rgb[0];
      img.data[i * 4 + 1] = rgb[1];
      img.data[i * 4 + 2] = rgb[2];
      img.data[i * 4 + 3] = 255;
    }
  ctx.putImageData(img, 0, 0);
  return canvas;
}

/** Sets (v = 1) or clears (v = 0) a disc of radius r around (cx, cy). */
function paintDisc(mask: Uint8Array, w: number, h: number, cx: number, cy: number, r: number, v: number) {
  for (let y = Math.max(0, Math.floor(cy - r)); y <= Math.min(h - 1, Math.ceil(cy + r)); y++)
    for (let x = Math.max(0, Math.floor(cx - r)); x <= Math.min(w - 1, Math.ceil(cx + r)); x++)
      if ((x - cx) ** 2 + (y - cy) ** 2 <= r * r) mask[y * w + x] = v;
}

/** Fills the polygon (even-odd, pixel centres) into `mask`. */
function fillPolygon(mask: Uint8Array, w: number, h: number, pts: [number, number][]) {
  for (let y = 0; y < h; y++) {
    const yc = y + 0.5;
    const xs: number[] = [];
    for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
      const [xi, yi] = pts[i];
      const [xj, yj] = pts[j];
      if (yi > yc !== yj > yc) xs.push(xi + ((yc - yi) * (xj - xi)) / (yj - yi));
    }
    xs.sort((a, b) => a - b);
    for (let k = 0; k + 1 < xs.length; k += 2)
      for (let x = Math.max(0, Math.ceil(xs[k] - 0.5)); x <= Math.min(w - 1, Math.floor(xs[k + 1] - 0.5)); x++)
        mask[y * w + x] = 1;
  }
}

/** The grey values (first channel) of a PNG data URL, at the working size (nearest neighbour, as the masks). */
async function probabilityAt(url: string, photo: { w: number; h: number }, W: number, H: number) {
  const img = new Image();
  img.src = url;
  await img.decode();
  if (img.naturalWidth !== photo.w || img.naturalHeight !== photo.h)
    throw new Error(`a probability map of ${img.naturalWidth}x${img.naturalHeight} for a ${photo.w}x${photo.h} photo`);
  const canvas = document.createElement('canvas');
  canvas.width = photo.w;
  canvas.height = photo.h;
  const ctx = canvas.getContext('2d')!;
  ctx.drawImage(img, 0, 0);
  const rgba = ctx.getImageData(0, 0, photo.w, photo.h).data;
  const grey = new Uint8Array(photo.w * photo.h);
  for (let i = 0; i < grey.length; i++) grey[i] = rgba[i * 4];
  return resizeMaskNearest(grey, photo.w, photo.h, W, H);
}

export interface EditorItem {
  position: number;
  filename: string;
  result: Record<string, unknown>;
}

export default function MaskEditor({
  runId,
  item,
  runOptions,
  onSaved,
  onClose,
}: {
  runId: string;
  item: EditorItem;
  /** the run's stored options: its `grades` (a preset or a lab's own rules) grade the live figures */
  runOptions?: Record<string, unknown>;
  onSaved: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const base = itemBase(runId, item.position);
  const [photo, setPhoto] = useState<{ img: HTMLImageElement; work: RasterImage; w: number; h: number } | null>(null);
  const [masks, setMasks] = useState<Masks | null>(null);
  const [modelId, setModelId] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const [tool, setTool] = useState<Tool>('brush');
  const [layer, setLayer] = useState<LayerName>('lesion');
  const [size, setSize] = useState(12);
  const [opacity, setOpacity] = useState(0.5);
  const [shown, setShown] = useState<Record<LayerName, boolean>>({ fruit: true, lesion: true });
  const [view, setView] = useState({ scale: 1, x: 0, y: 0 });
  const [polygon, setPolygon] = useState<[number, number][]>([]);
  const [help, setHelp] = useState(false);
  /** the lesion probability at the working size (the magic wand's), once loaded; '' while loading */
  const [probability, setProbability] = useState<Uint8Array | null | ''>('');
  const [threshold, setThreshold] = useState(50);
  /** the fruit the tools are limited to (its number in the figures), 0: all */
  const [selected, setSelected] = useState(0);
  const strokeLimit = useRef<Uint8Array | null>(null);
  const undo = useRef<Masks[]>([]);
  const redo = useRef<Masks[]>([]);
  const painting = useRef(false);

  // The kept photo, a working copy, and the masks to start from (the latest truth, else the model's).
  useEffect(() => {
    let cancelled = false;
    (async () => {
      const { img, w, h } = await loadKeptPhoto(base);
      const size = fitSize(w, h, WORK_SIDE);
      const work = rasterAt(img, size.width, size.height);
      let start = await apiFetch(`${base}/truth`);
      const fromTruth = start.status !== 404;
      if (!fromTruth) start = await apiFetch(`${base}/model-masks`);
      if (!start.ok) throw new Error(((await start.json()) as { error: string }).error);
      const body = (await start.json()) as {
        fruit: CocoRle;
        bruise: CocoRle;
        model_id?: string | null;
        probability?: string;
      };
      const down = (rle: CocoRle) => {
        const m = decodeCocoRle(rle);
        if (m.width !== w || m.height !== h) throw new Error(`masks of ${m.width}x${m.height} for a ${w}x${h} photo`);
        return resizeMaskNearest(m.mask, w, h, size.width, size.height);
      };
      if (cancelled) return;
      setPhoto({ img, work, w, h });
      setMasks({ fruit: down(body.fruit), lesion: down(body.bruise) });
      setModelId(body.model_id ?? (typeof item.result.model_id === 'string' ? item.result.model_id : null));
      // The magic wand's probability: with the model's masks, or asked for beside the stored truth.
      let probabilityUrl = body.probability;
      if (fromTruth) {
        const model = await apiFetch(`${base}/model-masks`);
        probabilityUrl = model.ok ? ((await model.json()) as { probability?: string }).probability : undefined;
      }
      const map = probabilityUrl ? await probabilityAt(probabilityUrl, { w, h }, size.width, size.height) : null;
      if (!cancelled) setProbability(map);
    })().catch((e: unknown) => !cancelled && setError((e as Error).message));
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [base]);

  const W = photo?.work.width ?? 0;
  const H = photo?.work.height ?? 0;
  // the room beside the editor's figures: the stage is never wider than the page (a phone)
  const [room, setRoom] = useState(STAGE_WIDTH);
  const roomObserver = useRef<ResizeObserver | null>(null);
  const measureRoom = useCallback((el: HTMLDivElement | null) => {
    roomObserver.current?.disconnect();
    if (!el) return;
    roomObserver.current = new ResizeObserver(() => setRoom(el.clientWidth - 2)); // the stage's border
    roomObserver.current.observe(el);
  }, []);
  const stageSize = stageFor(W, H, room);
  // the photo fitted to the stage once it is in, and again when the room changes
  useEffect(() => {
    if (W > 0 && H > 0) setView({ scale: Math.min(stageSize.width / W, stageSize.height / H), x: 0, y: 0 });
  }, [W, H, stageSize.width, stageSize.height]);
  const pxPerCm = typeof item.result.px_per_cm === 'number' ? item.result.px_per_cm : undefined;
  const figures = useMemo(
    () =>
      photo && masks
        ? figuresOfMasks(
            { width: W, height: H, fruit: masks.fruit, bruise: masks.lesion },
            photo.work,
            { width: photo.w, height: photo.h },
            pxPerCm,
          )
        : null,
    [photo, masks, W, H, pxPerCm],
  );
  // Each fruit's number as the figures number them (8-connected pieces of fruit and lesion together).
  const fruitLabels = useMemo(() => {
    if (!masks) return null;
    const union = new Uint8Array(masks.fruit.length);
    for (let i = 0; i < union.length; i++) union[i] = masks.fruit[i] || masks.lesion[i] ? 1 : 0;
    return { union, ...labelComponents(union, W, H, 8) };
  }, [masks, W, H]);
  /** The mask of the selected fruit (null: none selected, or it is gone). */
  const selection = useMemo(() => {
    if (!fruitLabels || selected < 1 || selected > fruitLabels.count) return null;
    const m = new Uint8Array(fruitLabels.labels.length);
    for (let i = 0; i < m.length; i++) m[i] = fruitLabels.labels[i] === selected ? 1 : 0;
    return m;
  }, [fruitLabels, selected]);
  // The run's own grade set (a preset or a lab's rules, from its options), applied live.
  const rules = useMemo(() => editorGradeRules(item.result, runOptions), [item.result, runOptions]);
  const fruitRows = useMemo(
    () => (figures ? liveFruitRows(item.filename, figures.fruits, rules) : []),
    [figures, rules, item.filename],
  );
  const canvases = useMemo(
    () =>
      masks && {
        fruit: maskCanvas(masks.fruit, W, H, COLOURS.fruit),
        lesion: maskCanvas(masks.lesion, W, H, COLOURS.lesion),
      },
    [masks, W, H],
  );

  const remember = useCallback(() => {
    if (!masks) return;
    undo.current = [...undo.current.slice(-HISTORY + 1), { fruit: masks.fruit.slice(), lesion: masks.lesion.slice() }];
    redo.current = [];
  }, [masks]);
  const step = (from: typeof undo, to: typeof redo) => {
    const last = from.current.at(-1);
    if (!last || !masks) return;
    from.current = from.current.slice(0, -1);
    to.current = [...to.current, masks];
    setMasks(last);
  };

  /** The working-copy pixel under the pointer. */
  const pointAt = (stage: Konva.Stage) => {
    const p = stage.getPointerPosition();
    return p ? { x: (p.x - view.x) / view.scale, y: (p.y - view.y) / view.scale } : null;
  };
  const paintAt = (stage: Konva.Stage) => {
    const p = pointAt(stage);
    if (!p || !masks) return;
    const next = { fruit: masks.fruit.slice(), lesion: masks.lesion.slice() };
    const target = layer === 'fruit' ? next.fruit : next.lesion;
    paintDisc(target, W, H, p.x, p.y, size / 2, tool === 'brush' ? 1 : 0);
    // A lesion lies on its fruit; erased fruit takes its lesion with it.
    if (tool === 'brush' && layer === 'lesion') paintDisc(next.fruit, W, H, p.x, p.y, size / 2, 1);
    if (tool === 'eraser' && layer === 'fruit') paintDisc(next.lesion, W, H, p.x, p.y, size / 2, 0);
    setMasks(limited(next, masks));
  };
  /**
   * With a fruit selected, an edit stays on that fruit (its mask when the stroke began): every pixel
   * outside it keeps its value; only the fruit layer's brush and polygon may grow the fruit.
   */
  const limited = (next: Masks, before: Masks): Masks => {
    const limit = strokeLimit.current;
    if (!limit) return next;
    limitTo(next.lesion, before.lesion, limit);
    if (layer === 'lesion' || tool === 'eraser' || tool === 'delete') limitTo(next.fruit, before.fruit, limit);
    return next;
  };
  const magicWandAt = (stage: Konva.Stage) => {
    const p = pointAt(stage);
    if (!p || !masks || !probability || !fruitLabels) return;
    const region = growRegion(
      probability,
      W,
      H,
      p.x,
      p.y,
      Math.round((threshold / 100) * 255),
      selection ?? fruitLabels.union,
    );
    if (!region) return setStatus(t('Nothing at or above the threshold here'));
    remember();
    const next = { fruit: masks.fruit.slice(), lesion: masks.lesion.slice() };
    let added = 0;
    for (let i = 0; i < region.length; i++)
      if (region[i] && !next.lesion[i]) {
        next.lesion[i] = 1;
        added++;
      }
    setStatus(t('{{n}} lesion pixels added', { n: fmt.integer(added) }));
    setMasks(next);
  };
  const deleteLesionAt = (stage: Konva.Stage) => {
    const p = pointAt(stage);
    if (!p || !masks) return;
    const i = Math.floor(p.y) * W + Math.floor(p.x);
    const target = layer === 'fruit' ? masks.fruit : masks.lesion;
    if (!target[i]) return;
    const c = labelComponents(target, W, H, 8);
    const label = c.labels[i];
    remember();
    const next = { fruit: masks.fruit.slice(), lesion: masks.lesion.slice() };
    for (let k = 0; k < target.length; k++)
      if (c.labels[k] === label) {
        (layer === 'fruit' ? next.fruit : next.lesion)[k] = 0;
        if (layer === 'fruit') next.lesion[k] = 0;
      }
    setMasks(limited(next, masks));
  };

  const onDown = (e: Konva.KonvaEventObject<PointerEvent>) => {
    const stage = e.target.getStage();
    if (!stage) return;
    strokeLimit.current = selection;
    if (tool === 'brush' || tool === 'eraser') {
      remember();
      painting.current = true;
      paintAt(stage);
    } else if (tool === 'polygon') {
      const p = pointAt(stage);
      if (p) setPolygon((pts) => [...pts, [p.x, p.y]]);
    } else if (tool === 'delete') deleteLesionAt(stage);
    else if (tool === 'wand') magicWandAt(stage);
  };
  const onMove = (e: Konva.KonvaEventObject<PointerEvent>) => {
    const stage = e.target.getStage();
    if (painting.current && stage) paintAt(stage);
  };
  const closePolygon = () => {
    if (!masks || polygon.length < 3) return setPolygon([]);
    remember();
    strokeLimit.current = selection;
    const next = { fruit: masks.fruit.slice(), lesion: masks.lesion.slice() };
    fillPolygon(layer === 'fruit' ? next.fruit : next.lesion, W, H, polygon);
    if (layer === 'lesion') fillPolygon(next.fruit, W, H, polygon);
    setMasks(limited(next, masks));
    setPolygon([]);
  };
  const onWheel = (e: Konva.KonvaEventObject<WheelEvent>) => {
    e.evt.preventDefault();
    const stage = e.target.getStage();
    const p = stage?.getPointerPosition();
    if (!p) return;
    const scale = Math.min(20, Math.max(0.05, view.scale * (e.evt.deltaY < 0 ? 1.2 : 1 / 1.2)));
    const wx = (p.x - view.x) / view.scale;
    const wy = (p.y - view.y) / view.scale;
    setView({ scale, x: p.x - wx * scale, y: p.y - wy * scale });
  };
  const fit = () => setView({ scale: Math.min(stageSize.width / W, stageSize.height / H), x: 0, y: 0 });

  const save = async () => {
    if (!photo || !masks) return;
    setStatus(t('Saving...'));
    const up = (m: Uint8Array) => encodeCocoRle(resizeMaskNearest(m, W, H, photo.w, photo.h), photo.w, photo.h);
    const res = await apiFetch(`${base}/truth`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ fruit: up(masks.fruit), bruise: up(masks.lesion), model_id: modelId }),
    });
    if (!res.ok) {
      setStatus('');
      setError(((await res.json()) as { error: string }).error);
      return;
    }
    setStatus(t('Saved'));
    onSaved();
  };

  const onKey = (e: KeyboardEvent) => {
    const k = e.key.toLowerCase();
    if ((e.ctrlKey || e.metaKey) && k === 'z') {
      e.preventDefault();
      if (e.shiftKey) step(redo, undo);
      else step(undo, redo);
    } else if (k === 'b') setTool('brush');
    else if (k === 'e') setTool('eraser');
    else if (k === 'p') setTool('polygon');
    else if (k === 'd') setTool('delete');
    else if (k === 'w') setTool('wand');
    else if (k === 'h') setTool('pan');
    else if (k === 'f') fit();
    else if (k === 'l') setLayer((l) => (l === 'fruit' ? 'lesion' : 'fruit'));
    else if (k === 'enter') closePolygon();
    else if (k === 'escape') setPolygon([]);
    else if (k === '?') setHelp((v) => !v);
  };

  if (error)
    return (
      <div
        className="mask-editor card"
        role="dialog"
        aria-label={t('Correct the masks of {{name}}', { name: item.filename })}
      >
        <p className="form-error" role="alert">
          {t(error)}
        </p>
        <button type="button" className="btn" onClick={onClose}>
          {t('Close')}
        </button>
      </div>
    );
  const TOOLS: [Tool, string][] = [
    ['brush', 'Brush'],
    ['eraser', 'Eraser'],
    ['polygon', 'Polygon'],
    ['wand', 'Magic wand'],
    ['delete', 'Delete region'],
    ['pan', 'Pan'],
  ];
  return (
    <div
      className="mask-editor card"
      role="dialog"
      aria-label={t('Correct the masks of {{name}}', { name: item.filename })}
      tabIndex={0}
      onKeyDown={onKey}
      data-testid="mask-editor"
    >
      <div className="mask-editor-tools" role="toolbar" aria-label={t('Tools')}>
        {TOOLS.map(([id, label]) => (
          <button
            key={id}
            type="button"
            className={`btn ${tool === id ? 'btn-primary' : ''}`}
            aria-pressed={tool === id}
            disabled={id === 'wand' && !probability}
            title={
              id === 'wand' && !probability
                ? t(probability === '' ? 'Loading the lesion probability...' : 'This photo has no lesion probability')
                : undefined
            }
            onClick={() => setTool(id)}
          >
            {t(label)}
          </button>
        ))}
        <label>
          {t('Layer')}{' '}
          <select value={layer} onChange={(e) => setLayer(e.target.value as LayerName)} aria-label={t('Layer')}>
            <option value="fruit">{t('Fruit')}</option>
            <option value="lesion">{t('Lesion')}</option>
          </select>
        </label>
        <label>
          {t('Size')} <input type="range" min={1} max={120} value={size} onChange={(e) => setSize(+e.target.value)} />
        </label>
        <label>
          {t('Threshold')}{' '}
          <input
            type="range"
            min={1}
            max={100}
            value={threshold}
            aria-label={t('Magic wand threshold')}
            onChange={(e) => setThreshold(+e.target.value)}
          />{' '}
          <span data-testid="wand-threshold">{threshold} %</span>
        </label>
        {fruitLabels && fruitLabels.count > 1 && (
          <label>
            {t('Fruit')}{' '}
            <select
              value={selected}
              onChange={(e) => setSelected(+e.target.value)}
              aria-label={t('Limit the tools to a fruit')}
              data-testid="editor-fruit-select"
            >
              <option value={0}>{t('All fruit')}</option>
              {Array.from({ length: fruitLabels.count }, (_, k) => (
                <option key={k} value={k + 1}>
                  {t('fruit {{n}}', { n: k + 1 })}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          {t('Opacity')}{' '}
          <input
            type="range"
            min={0}
            max={1}
            step={0.05}
            value={opacity}
            onChange={(e) => setOpacity(+e.target.value)}
          />
        </label>
        {(['fruit', 'lesion'] as const).map((l) => (
          <label key={l}>
            <input
              type="checkbox"
              checked={shown[l]}
              onChange={(e) => setShown((s) => ({ ...s, [l]: e.target.checked }))}
            />{' '}
            {t(l === 'fruit' ? 'Show fruit' : 'Show lesions')}
          </label>
        ))}
        <button type="button" className="btn" onClick={() => step(undo, redo)}>
          {t('Undo')}
        </button>
        <button type="button" className="btn" onClick={() => step(redo, undo)}>
          {t('Redo')}
        </button>
        <button type="button" className="btn" onClick={fit}>
          {t('Fit')}
        </button>
        <button type="button" className="btn" aria-expanded={help} onClick={() => setHelp((v) => !v)}>
          {t('Shortcuts')}
        </button>
      </div>
      {help && (
        <ul className="mask-editor-help" aria-label={t('Shortcuts')}>
          <li>B – {t('Brush')}</li>
          <li>E – {t('Eraser')}</li>
          <li>
            P – {t('Polygon')} ({t('double-click or Enter closes it')})
          </li>
          <li>
            W – {t('Magic wand')} ({t('click a lesion: the region at or above the threshold is added')})
          </li>
          <li>
            D – {t('Delete region')} ({t('click a lesion: it is removed whole')})
          </li>
          <li>H – {t('Pan')}</li>
          <li>L – {t('Switch layer')}</li>
          <li>F – {t('Fit')}</li>
          <li>
            Ctrl+Z / Ctrl+Shift+Z – {t('Undo')} / {t('Redo')}
          </li>
          <li>{t('Wheel: zoom')}</li>
          <li>? – {t('Shortcuts')}</li>
        </ul>
      )}
      <div className="mask-editor-body" ref={measureRoom}>
        <div className="mask-editor-stage" style={{ touchAction: 'none' }} data-testid="mask-editor-stage">
          {photo && canvases ? (
            <Stage
              width={stageSize.width}
              height={stageSize.height}
              onPointerDown={onDown}
              onPointerMove={onMove}
              onPointerUp={() => (painting.current = false)}
              onPointerLeave={() => (painting.current = false)}
              onDblClick={closePolygon}
              onDblTap={closePolygon}
              onWheel={onWheel}
            >
              <Layer
                x={view.x}
                y={view.y}
                scaleX={view.scale}
                scaleY={view.scale}
                draggable={tool === 'pan'}
                onDragEnd={(e) => setView((v) => ({ ...v, x: e.target.x(), y: e.target.y() }))}
              >
                <KonvaImage image={photo.img} width={W} height={H} />
                {shown.fruit && <KonvaImage image={canvases.fruit} opacity={opacity * 0.6} />}
                {shown.lesion && <KonvaImage image={canvases.lesion} opacity={opacity} />}
                {polygon.length > 0 && (
                  <Line points={polygon.flat()} stroke="#ffeb3b" strokeWidth={2 / view.scale} closed={false} />
                )}
              </Layer>
            </Stage>
          ) : (
            <p>{t('Loading...')}</p>
          )}
        </div>
        <aside className="mask-editor-figures" aria-live="polite" data-testid="mask-editor-figures">
          {figures && (
            <dl>
              <dt>{t('Fruit pixels')}</dt>
              <dd data-testid="editor-fruit-pixels">{fmt.integer(figures.total_mango_pixels)}</dd>
              <dt>{t('Lesion pixels')}</dt>
              <dd data-testid="editor-bruise-pixels">{fmt.integer(figures.bruise_pixels)}</dd>
              <dt>{t('Bruise %')}</dt>
              <dd data-testid="editor-bruise-percent">{fmt.fixed(figures.bruise_percent)}</dd>
              {figures.fruit_area_cm2 !== undefined && (
                <>
                  <dt>{t('Bruise cm²')}</dt>
                  <dd>{fmt.fixed(figures.bruise_area_cm2 ?? 0)}</dd>
                </>
              )}
            </dl>
          )}
          {figures && (fruitRows.length > 1 || rules) && (
            <table className="results-table" aria-label={t('Fruit')}>
              <thead>
                <tr>
                  <th>{t('Fruit')}</th>
                  <th className="num">{t('Pixels')}</th>
                  <th className="num">{t('Lesion pixels')}</th>
                  <th className="num">{t('Bruise %')}</th>
                  {pxPerCm !== undefined && <th className="num">{t('Bruise cm²')}</th>}
                  {rules && <th>{t('Grade')}</th>}
                </tr>
              </thead>
              <tbody>
                {fruitRows.map((f, k) => (
                  <tr
                    key={k}
                    data-testid="editor-fruit"
                    className={selected === k + 1 ? 'selected' : undefined}
                    aria-selected={selected === k + 1}
                    onClick={() => setSelected((s) => (s === k + 1 ? 0 : k + 1))}
                  >
                    <td>{t('fruit {{n}}', { n: k + 1 })}</td>
                    <td className="num">{fmt.integer(f.pixels)}</td>
                    <td className="num">{fmt.integer(f.bruise_pixels)}</td>
                    <td className="num">{fmt.fixed(f.bruise_percent)}</td>
                    {pxPerCm !== undefined && <td className="num">{fmt.fixed(f.bruise_area_cm2 ?? 0)}</td>}
                    {rules && <td data-testid="editor-fruit-grade">{fruitGradeText(f, t)}</td>}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <div className="mask-editor-actions">
            <button type="button" className="btn btn-primary" onClick={() => void save()} disabled={!masks}>
              {t('Save')}
            </button>
            <button type="button" className="btn" onClick={onClose}>
              {t('Close')}
            </button>
            <span role="status">{status}</span>
          </div>
        </aside>
      </div>
    </div>
  );
}
