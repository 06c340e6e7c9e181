/** Helpers of the hardening suite (issue 16): test photos and multipart bodies built byte by byte. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import { answerOf } from '../../testing/accounts.ts';

/** A photo-like PNG: a yellow fruit with one dark lesion on a grey background. */
export async function mangoPng(width = 320, height = 240): Promise<Uint8Array> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="#8c8c8a"/>
    <ellipse cx="${width / 2}" cy="${height / 2}" rx="${width / 3}" ry="${height / 3}" fill="#e0b43c"/>
    <ellipse cx="${width / 2.4}" cy="${height / 2.3}" rx="${width / 14}" ry="${height / 14}" fill="#6e5228"/></svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
}

export type Part =
  | { name: string; value: string }
  /** `encoded`: sent as RFC 5987 `filename*=UTF-8''...`, which can carry any character */
  | { name: string; filename: string; bytes: Uint8Array; encoded?: boolean };

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
        ? `form-data; name="${p.name}"; ${p.encoded ? `filename*=UTF-8''${encodeURIComponent(p.filename)}` : `filename="${p.filename}"`}\r\nContent-Type: application/octet-stream`
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
  return answerOf<unknown>(res);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface StreamedUpload {
  status: number;
  body: string;
  /** bytes the client had written when the answer arrived */
  sentBeforeAnswer: number;
  /** ms from the start to the answer */
  answeredAfterMs: number;
}

/** A POST being streamed: its request, the bytes written so far, and whether the answer has arrived. */
interface Streaming {
  req: ClientRequest;
  sent: number;
  answered: boolean;
}

/**
 * POSTs what `write` writes (it counts its bytes in `sent` and stops once `answered`) and resolves
 * with the answer and how much had been written when it came. The server may close the connection
 * while the body is still being written: that is expected, not a failure.
 */
function streamedPost(
  url: string,
  headers: Record<string, string>,
  write: (s: Streaming) => Promise<void>,
): Promise<StreamedUpload> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers });
    const s: Streaming = { req, sent: 0, answered: false };
    req.on('response', (res) => {
      s.answered = true;
      const sentBeforeAnswer = s.sent;
      const answeredAfterMs = performance.now() - t0;
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body, sentBeforeAnswer, answeredAfterMs });
        req.destroy();
      });
    });
    req.on('error', (e) => {
      if (!s.answered) reject(e);
    });
    write(s).catch(reject);
  });
}

/**
 * Streams one multipart file of `fileBytes` bytes (a PNG signature, then filler), written as the
 * server reads it, and resolves with the answer; writing stops when the answer arrives or the
 * server closes the connection. `hold` keeps the body open (unfinished) until it resolves.
 */
export function streamUpload(
  url: string,
  fileBytes: number,
  headers: Record<string, string>,
  options: { filename?: string; hold?: Promise<void> } = {},
): Promise<StreamedUpload> {
  const boundary = `----mango${randomBytes(8).toString('hex')}`;
  const head = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="images"; filename="${options.filename ?? 'huge.png'}"\r\n` +
        'Content-Type: image/png\r\n\r\n',
    ),
    PNG_SIGNATURE,
  ]);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(256 * 1024, 0x41);
  const contentLength = head.length + fileBytes - PNG_SIGNATURE.length + tail.length;
  const contentType = `multipart/form-data; boundary=${boundary}`;
  return streamedPost(
    url,
    { ...headers, 'content-type': contentType, 'content-length': String(contentLength) },
    async (s) => {
      const { req } = s;
      req.write(head);
      s.sent += head.length;
      let left = fileBytes - PNG_SIGNATURE.length;
      while (left > 0 && !s.answered && !req.destroyed) {
        if (options.hold && left < chunk.length * 2) await options.hold;
        const n = Math.min(left, chunk.length);
        const ok = req.write(n === chunk.length ? chunk : chunk.subarray(0, n));
        s.sent += n;
        left -= n;
        if (!ok) await new Promise((r) => req.once('drain', r).once('close', r));
      }
      if (!s.answered && !req.destroyed) req.end(tail);
    },
  );
}

/** Milliseconds /healthz takes to answer. */
export async function healthzLatency(baseUrl: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}/healthz`);
  await res.text();
  if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
  return performance.now() - t0;
}

/**
 * Starts `server/src/main.ts` in a child process on 127.0.0.1 and a free port (its memory and
 * latency measured apart from the test's own); `env` adds to or overrides its environment.
 */
export async function startServerProcess(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<{ url: string; child: ChildProcess }> {
  const repo = resolve(import.meta.dirname, '../../../..');
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', join(repo, 'server/src/main.ts')], {
    cwd: repo,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_REQUESTS: '0',
      LOGIN_LIMIT_PER_MINUTE: '100',
      JWT_SECRET: 'load-test-secret-that-is-long-enough-0123456789',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = /listening on http:\/\/localhost:(\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolveUrl(`http://127.0.0.1:${m[1]}`);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  return { url, child };
}

/** Resident memory of a process, MB (Linux /proc). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Probes /healthz every 50 ms from a worker thread (its timing is not disturbed by this thread's uploads). */
export function startHealthProbe(url: string) {
  const worker = new Worker(
    `
    const { parentPort, workerData } = require('node:worker_threads');
    let stop = false;
    parentPort.on('message', () => (stop = true));
    (async () => {
      const latencies = [];
      const failures = [];
      while (!stop && latencies.length + failures.length < 4000) {
        const t0 = performance.now();
        try {
          const res = await fetch(workerData + '/healthz', { signal: AbortSignal.timeout(5000) });
          await res.text();
          if (res.status === 200) latencies.push(performance.now() - t0);
          else failures.push(res.status);
        } catch (e) {
          failures.push(String(e));
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      parentPort.postMessage({ latencies, failures });
    })();
    `,
    { eval: true, workerData: url },
  );
  return {
    stop: () =>
      new Promise<{ latencies: number[]; failures: unknown[] }>((resolveProbe) => {
        worker.once('message', (m) => {
          resolveProbe(m as { latencies: number[]; failures: unknown[] });
          void worker.terminate();
        });
        worker.postMessage('stop');
      }),
  };
}

/**
 * Streams a multipart body of about `bodyBytes` bytes with `Transfer-Encoding: chunked` (no
 * Content-Length), 1 MB a write, as fast as the server reads it; writing stops when the answer
 * arrives or the server closes the connection.
 */
export function streamChunked(
  url: string,
  bodyBytes: number,
  headers: Record<string, string>,
): Promise<StreamedUpload> {
  const boundary = `----mango${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="images"; filename="huge.png"\r\n` +
      'Content-Type: image/png\r\n\r\n',
  );
  const chunk = Buffer.alloc(1024 * 1024, 0x41);
  return streamedPost(url, { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` }, async (s) => {
    const { req } = s;
    req.write(head);
    s.sent += head.length;
    while (s.sent < bodyBytes && !s.answered && !req.destroyed) {
      const ok = req.write(chunk);
      s.sent += chunk.length;
      if (!ok) {
        await new Promise<void>((r) => {
          const go = () => {
            req.off('drain', go).off('close', go);
            r();
          };
          req.on('drain', go).on('close', go);
        });
      }
    }
    if (!s.answered && !req.destroyed) req.end(`\r\n--${boundary}--\r\n`);
  });
}
