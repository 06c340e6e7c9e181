/**
 * Geometry of the crop page: a fixed 4:3 crop box in the middle of the stage, the image (rotated
 * about its centre, on the grown canvas of the crop plugin) scaled to cover the box at zoom 1.
 */
import { rotation } from '@mango/plugin-crop';

export const ASPECT = 4 / 3;
export const STAGE = { width: 640, height: 480 };
export const BOX = { x: 80, y: 60, width: 480, height: 360 };
export const ZOOM = { min: 1, max: 3, step: 0.1 };
export const ROTATE_STEP = 15;

export interface View {
  zoom: number;
  rotate: number;
  /** centre of the image on the stage */
  cx: number;
  cy: number;
}

/** Stage pixels per image pixel. */
export function scaleOf(imageWidth: number, imageHeight: number, v: Pick<View, 'zoom' | 'rotate'>): number {
  const rot = rotation(imageWidth, imageHeight, v.rotate);
  return Math.max(BOX.width / rot.width, BOX.height / rot.height) * v.zoom;
}

/** Keeps the crop box inside the rotated image's canvas. */
export function clampCentre(imageWidth: number, imageHeight: number, v: View): { cx: number; cy: number } {
  const rot = rotation(imageWidth, imageHeight, v.rotate);
  const s = scaleOf(imageWidth, imageHeight, v);
  const halfW = (rot.width * s) / 2;
  const halfH = (rot.height * s) / 2;
  const cx = Math.min(BOX.x + halfW, Math.max(BOX.x + BOX.width - halfW, v.cx));
  const cy = Math.min(BOX.y + halfH, Math.max(BOX.y + BOX.height - halfH, v.cy));
  return { cx, cy };
}

/** The crop box in whole pixels of the rotated canvas: the options of the crop plugin. */
export function cropRectangle(imageWidth: number, imageHeight: number, v: View) {
  const rot = rotation(imageWidth, imageHeight, v.rotate);
  const s = scaleOf(imageWidth, imageHeight, v);
  const width = Math.max(1, Math.min(rot.width, Math.round(BOX.width / s)));
  const height = Math.max(1, Math.min(rot.height, Math.round(width / ASPECT)));
  const left = (BOX.x - (v.cx - (rot.width * s) / 2)) / s;
  const top = (BOX.y - (v.cy - (rot.height * s) / 2)) / s;
  const x = Math.max(0, Math.min(rot.width - width, Math.round(left)));
  const y = Math.max(0, Math.min(rot.height - height, Math.round(top)));
  return { x, y, width, height, rotate: v.rotate };
}

export function initialView(): View {
  return { zoom: 1, rotate: 0, cx: BOX.x + BOX.width / 2, cy: BOX.y + BOX.height / 2 };
}
