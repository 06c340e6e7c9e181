/** Helpers of the hardening suite (issue 16): test photos and multipart bodies built byte by byte. */
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';

/** A photo-like PNG: a yellow fruit with one dark lesion on a grey background. */
export async function mangoPng(width = 320, height = 240): Promise<Uint8Array> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="#8c8c8a"/>
    <ellipse cx="${width / 2}" cy="${height / 2}" rx="${width / 3}" ry="${height / 3}" fill="#e0b43c"/>
    <ellipse cx="${width / 2.4}" cy="${height / 2.3}" rx="${width / 14}" ry="${height / 14}" fill="#6e5228"/></svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
}

export type Part = { name: string; value: string } | { name: string; filename: string; bytes: Uint8Array };

/**
 * A multipart/form-data body written by hand, so file names reach the server exactly as given
 * (fetch's FormData escapes quotes and line breaks in them).
 */
export function multipart(parts: Part[]): { body: Uint8Array; contentType: string } {
  const boundary = `----mango${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition =
      'filename' in p
        ? `form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: application/octet-stream`
        : `form-data; name="${p.name}"`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`, 'utf8'));
    chunks.push('filename' in p ? Buffer.from(p.bytes) : Buffer.from(p.value, 'utf8'));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: new Uint8Array(Buffer.concat(chunks)), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POSTs a hand-written multipart body. */
export async function postMultipart(url: string, parts: Part[], headers: Record<string, string> = {}) {
  const { body, contentType } = multipart(parts);
  const res = await fetch(url, {
    method: 'POST',
    body: body as BodyInit,
    headers: { ...headers, 'content-type': contentType },
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: json, headers: res.headers };
}
