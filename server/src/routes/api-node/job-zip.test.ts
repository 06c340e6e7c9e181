/**
 * Issue 23, "a 26 KB zip writes 962 MB": POST /api-node/jobs took a zip holding one 24 MB all-zero
 * entry and 40 central-directory records pointing at it (202, 962 MB written under DATA_DIR). Now
 * the records are checked before anything is unpacked: overlapping entries are refused (400 with
 * the reason), and so is a zip whose photos unpack to more than MAX_JOB_MB all together (413).
 * Bytes written are measured as the server process's write() total (/proc/self/io `wchar`: the
 * server runs in this process), the most DATA_DIR held during the request, and what it holds after;
 * on PostgreSQL, the job tables too. On every database of TEST_DATABASES.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import JSZip from 'jszip';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, signUp, type SignedIn } from '../../testing/accounts.ts';
import { zipFilesInMemory } from './job-zip.ts';

const MB = 1024 * 1024;

interface Item {
  name: string;
  /** 0 stored, 8 deflated */
  method: 0 | 8;
  /** the bytes as they are in the zip */
  compressed: Buffer;
  crc: number;
  size: number;
}

/** A local file header and its data. */
function localEntry(item: Item): Buffer {
  const name = Buffer.from(item.name);
  const h = Buffer.alloc(30);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(20, 4); // version needed
  h.writeUInt16LE(item.method, 8);
  h.writeUInt32LE(item.crc, 14);
  h.writeUInt32LE(item.compressed.length, 18);
  h.writeUInt32LE(item.size, 22);
  h.writeUInt16LE(name.length, 26);
  return Buffer.concat([h, name, item.compressed]);
}

/** The zip: `locals` first, then one central-directory record per `records` item, pointing at `offset`. */
function handZip(locals: Buffer, records: (Item & { offset: number })[]): Uint8Array {
  const central: Buffer[] = [];
  for (const r of records) {
    const name = Buffer.from(r.name);
    const h = Buffer.alloc(46);
    h.writeUInt32LE(0x02014b50, 0);
    h.writeUInt16LE(20, 4); // version made by
    h.writeUInt16LE(20, 6); // version needed
    h.writeUInt16LE(r.method, 10);
    h.writeUInt32LE(r.crc, 16);
    h.writeUInt32LE(r.compressed.length, 20);
    h.writeUInt32LE(r.size, 24);
    h.writeUInt16LE(name.length, 28);
    h.writeUInt32LE(r.offset, 42);
    central.push(h, name);
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(records.length, 8);
  end.writeUInt16LE(records.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(locals.length, 16);
  return new Uint8Array(Buffer.concat([locals, directory, end]));
}

/** `size` zero bytes, deflated, as `name`. */
function zeros(name: string, size: number): Item {
  const data = Buffer.alloc(size);
  return { name, method: 8, compressed: deflateRawSync(data, { level: 9 }), crc: crc32(data), size };
}

/**
 * The zip of the issue: one local entry (`bomb-0.png`, `size` zero bytes, deflated) and `records`
 * central-directory records (`bomb-0.png` ... ), every one pointing at that entry.
 */
function overlappingZip(size: number, records: number): Uint8Array {
  const item = zeros('bomb-0.png', size);
  return handZip(
    localEntry(item),
    Array.from({ length: records }, (_, i) => ({ ...item, name: `bomb-${i}.png`, offset: 0 })),
  );
}

/**
 * Overlapping without sharing a start: `outer.png`, stored, holds the whole local entry of
 * `inner.png` (24 MB of zeros, deflated) as its data; the record of `inner.png` points inside it.
 */
function nestedZip(): Uint8Array {
  const inner = zeros('inner.png', 24 * MB);
  const innerEntry = localEntry(inner);
  const outer: Item = {
    name: 'outer.png',
    method: 0,
    compressed: innerEntry,
    crc: crc32(innerEntry),
    size: innerEntry.length,
  };
  return handZip(localEntry(outer), [
    { ...outer, offset: 0 },
    { ...inner, offset: 30 + Buffer.byteLength(outer.name) },
  ]);
}

/** Bytes this process has passed to write() so far (the server runs in it). */
const writtenByProcess = () => Number(/wchar:\s+(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

/** Bytes of the files under `dir`. */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    try {
      const s = statSync(join(dir, name));
      if (s.isFile()) total += s.size;
    } catch {
      // removed meanwhile
    }
  }
  return total;
}

/** The id of a signed-in user. */
async function userId(server: TestServer, user: SignedIn): Promise<number> {
  const row = await server.ctx.db
    .selectFrom('users')
    .select('id')
    .where('username', '=', user.username)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Sends `zip` as a bruise job and measures what the server wrote meanwhile. */
async function sendZip(server: TestServer, user: SignedIn, zip: Uint8Array) {
  const before = bytesUnder(server.dataDir);
  let peak = before;
  const watch = setInterval(() => (peak = Math.max(peak, bytesUnder(server.dataDir))), 10);
  const wchar0 = writtenByProcess();
  const fd = new FormData();
  fd.append('operation', 'bruise');
  fd.append('zip', new Blob([zip as BlobPart]), 'photos.zip');
  const res = await fetch(`${server.url}/api-node/jobs`, {
    method: 'POST',
    body: fd,
    headers: { authorization: `Bearer ${user.accessToken}` },
  });
  const body = (await res.json()) as { id?: string; error?: string };
  const written = writtenByProcess() - wchar0;
  clearInterval(watch);
  const after = bytesUnder(server.dataDir);
  const jobs = await server.ctx.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', await userId(server, user))
    .executeTakeFirstOrThrow();
  return {
    status: res.status,
    body,
    written,
    peakGrowth: peak - before,
    afterGrowth: after - before,
    jobs: Number(jobs.n),
  };
}

describe.each(TEST_DATABASES)('issue 23: zip amplification of a batch job, on %s', (database) => {
  let server: TestServer;
  let alice: SignedIn;
  beforeAll(async () => {
    // The defaults: MAX_UPLOAD_MB 25, MAX_JOB_FILES 10,000, MAX_JOB_MB 10,240.
    server = await startTestServer({ workerThreads: 1 }, { database });
    alice = await signUp(client(server));
  });
  afterAll(() => server.close());

  it('refuses the 26 KB zip of 40 records pointing at one 24 MB entry: 400 with the reason, under 1 MB written', async () => {
    const zip = overlappingZip(24 * MB, 40);
    expect(zip.length).toBeLessThan(30 * 1024);
    const answer = await sendZip(server, alice, zip);
    console.log(JSON.stringify({ database, zipBytes: zip.length, ...answer }));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/overlapping entries/);
    expect(answer.body.error).toMatch(/bomb-0\.png and bomb-1\.png/);
    expect(answer.written).toBeLessThan(1 * MB);
    expect(answer.peakGrowth).toBeLessThan(1 * MB);
    expect(answer.afterGrowth).toBeLessThan(1 * MB);
    expect(answer.jobs).toBe(0);
  });

  it('refuses entries that overlap without sharing a start (one inside the stored data of another)', async () => {
    const answer = await sendZip(server, alice, nestedZip());
    console.log(JSON.stringify({ database, ...answer }));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(
      /entries outer\.png and inner\.png point at the same data \(overlapping entries\)/,
    );
    expect(answer.written).toBeLessThan(1 * MB);
    expect(answer.afterGrowth).toBeLessThan(1 * MB);
    expect(answer.jobs).toBe(0);
  });

  it('refuses a zip whose photos unpack to more than MAX_JOB_MB in total (413), before unpacking any', async () => {
    const small = await startTestServer({ workerThreads: 1, maxJobBytes: 2 * MB }, { database });
    try {
      const bob = await signUp(client(small));
      const jszip = new JSZip();
      // Three distinct 1 MB photos (each within MAX_UPLOAD_MB), 3 MB together against a 2 MB limit.
      for (const i of [1, 2, 3]) jszip.file(`crate/zero-${i}.png`, new Uint8Array(MB).fill(i));
      const zip = await jszip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
      expect(zip.length).toBeLessThan(64 * 1024);
      const answer = await sendZip(small, bob, zip);
      console.log(JSON.stringify({ database, zipBytes: zip.length, ...answer }));
      expect(answer.status).toBe(413);
      expect(answer.body.error).toMatch(/unpack to more than the limit of 2 MB for a job/);
      expect(answer.written).toBeLessThan(1 * MB);
      expect(answer.afterGrowth).toBeLessThan(1 * MB);
      expect(answer.jobs).toBe(0);
    } finally {
      await small.close();
    }
  });
});

/**
 * An annotation import's zip (POST /api-node/runs/{id}/annotations) is read in memory with the same
 * checks before anything is unpacked: overlapping records refused, each file and the total bounded.
 */
describe('zipFilesInMemory (annotation imports)', () => {
  it('reads the files by path, passing over folders and __MACOSX companions', async () => {
    const zip = new JSZip();
    zip.file('export/labelmap.txt', 'fruit:1,2,3::\n');
    zip.file('export/SegmentationClass/a.png', new Uint8Array([1, 2, 3]));
    zip.file('__MACOSX/export/._labelmap.txt', 'x');
    const files = await zipFilesInMemory(await zip.generateAsync({ type: 'uint8array' }), {
      maxFileBytes: MB,
      maxTotalBytes: MB,
      maxEntries: 10,
    });
    expect([...files.names].sort()).toEqual(['export/SegmentationClass/a.png', 'export/labelmap.txt']);
    expect(new TextDecoder().decode(files.read('export/labelmap.txt'))).toBe('fruit:1,2,3::\n');
    expect(() => files.read('nothing.png')).toThrow(/the zip has no nothing.png/);
  });

  it('refuses overlapping records, a file or a total over the limits, and too many entries, before unpacking', async () => {
    const limits = { maxFileBytes: MB, maxTotalBytes: 2 * MB, maxEntries: 100 };
    await expect(zipFilesInMemory(overlappingZip(MB / 2, 3), limits)).rejects.toThrow(/overlapping entries/);
    const big = new JSZip();
    big.file('one.png', new Uint8Array(MB + 1));
    await expect(
      zipFilesInMemory(await big.generateAsync({ type: 'uint8array', compression: 'DEFLATE' }), limits),
    ).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
    const many = new JSZip();
    for (let i = 0; i < 3; i++) many.file(`m${i}.png`, new Uint8Array(MB - 10));
    await expect(
      zipFilesInMemory(await many.generateAsync({ type: 'uint8array', compression: 'DEFLATE' }), limits),
    ).rejects.toThrow(/unpacks to more than the limit/);
    await expect(
      zipFilesInMemory(await many.generateAsync({ type: 'uint8array' }), { ...limits, maxEntries: 2 }),
    ).rejects.toThrow(/holds 3 entries: at most 2/);
    await expect(zipFilesInMemory(new TextEncoder().encode('PK\x03\x04 nothing'), limits)).rejects.toThrow(
      /could not be read/,
    );
  });
});
