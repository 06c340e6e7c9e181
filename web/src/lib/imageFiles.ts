/** Turning images handed over between tools ({url, name}) into png Files for an upload. */
import { fileStem } from './download.ts';

export interface ImageRef {
  url: string;
  name: string;
}

export function isImageRefList(value: unknown): value is ImageRef[] {
  return (
    Array.isArray(value) &&
    value.every((v) => v && typeof v === 'object' && typeof v.url === 'string' && typeof v.name === 'string')
  );
}

export function isFileList(value: unknown): value is File[] {
  return Array.isArray(value) && value.every((v) => v instanceof File);
}

/** Re-encodes a decodable image blob as png through a canvas. */
async function toPngBlob(blob: Blob): Promise<Blob> {
  if (blob.type === 'image/png') return blob;
  const bitmap = await createImageBitmap(blob);
  const canvas = document.createElement('canvas');
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  canvas.getContext('2d')?.drawImage(bitmap, 0, 0);
  bitmap.close();
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('png encoding failed'))), 'image/png'),
  );
}

/** Fetches each image (object, data or same-origin URL) and returns it as a png File named <stem>.png. */
export async function imageRefsToPngFiles(refs: readonly ImageRef[]): Promise<File[]> {
  return Promise.all(
    refs.map(async (ref) => {
      const res = await fetch(ref.url);
      if (!res.ok) throw new Error(`Could not fetch ${ref.name}: ${res.status}`);
      const png = await toPngBlob(await res.blob());
      return new File([png], `${fileStem(ref.name)}.png`, { type: 'image/png' });
    }),
  );
}
