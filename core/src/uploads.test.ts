import { describe, expect, it } from 'vitest';
import {
  exportFileName,
  exportStems,
  archiveEntryName,
  CROP_UPLOAD,
  DROPZONE_UPLOAD,
  KMEANS_UPLOAD,
  SERVER_UPLOAD,
  WIDGET_UPLOAD,
  FALLBACK_FILE_NAME,
  MAX_FILE_NAME_BYTES,
  refusalMessage,
  sanitizeFileName,
  uploadRefusal,
} from './uploads.ts';

describe('upload rules', () => {
  it('dropzone: .jpg, .jpeg, .png by name, any size', () => {
    expect(uploadRefusal(DROPZONE_UPLOAD, { name: 'A.JPG', type: '' })).toBeNull();
    expect(uploadRefusal(DROPZONE_UPLOAD, { name: 'a.jpeg', size: 1e9 })).toBeNull();
    expect(uploadRefusal(DROPZONE_UPLOAD, { name: 'a.webp', type: 'image/png' })).toBe('type');
    expect(refusalMessage(DROPZONE_UPLOAD, 'type')).toBe('Only .jpg, .jpeg, and .png files are allowed.');
  });

  it('K-Means: jpeg/png/jpg by type, at most 5242880 bytes', () => {
    expect(KMEANS_UPLOAD.maxBytes).toBe(5242880);
    expect(uploadRefusal(KMEANS_UPLOAD, { name: 'x', type: 'image/jpg', size: 5242880 })).toBeNull();
    expect(uploadRefusal(KMEANS_UPLOAD, { name: 'a.png', type: 'image/png', size: 5242881 })).toBe('size');
    expect(uploadRefusal(KMEANS_UPLOAD, { name: 'a.png', type: 'image/webp', size: 9e9 })).toBe('type');
    expect(refusalMessage(KMEANS_UPLOAD, 'type')).toBe('Unsupported file type. Please upload a JPG or PNG image.');
    expect(refusalMessage(KMEANS_UPLOAD, 'size')).toBe('Image too large. Maximum allowed size is 5MB.');
  });

  it('Crop: any image, no size check', () => {
    expect(CROP_UPLOAD.accept).toBe('image/*');
    expect(uploadRefusal(CROP_UPLOAD, { name: 'a.gif', type: 'image/gif', size: 50e6 })).toBeNull();
  });

  it('widget: JPEG, PNG, WebP by type, by name when there is no type', () => {
    expect(uploadRefusal(WIDGET_UPLOAD, { name: 'a.bin', type: 'image/webp' })).toBeNull();
    expect(uploadRefusal(WIDGET_UPLOAD, { name: 'a.webp', type: '' })).toBeNull();
    expect(uploadRefusal(WIDGET_UPLOAD, { name: 'a.png', type: 'image/gif' })).toBe('type');
    expect(uploadRefusal(WIDGET_UPLOAD, { name: 'a.gif', type: '' })).toBe('type');
  });

  it('server and CLI: the decoder formats by name, 25 MB by default', () => {
    for (const n of ['a.jpg', 'a.JPEG', 'a.png', 'a.webp', 'a.tif', 'a.TIFF']) {
      expect(uploadRefusal(SERVER_UPLOAD, { name: n })).toBeNull();
    }
    expect(uploadRefusal(SERVER_UPLOAD, { name: 'a.gif' })).toBe('type');
    expect(uploadRefusal(SERVER_UPLOAD, { name: 'a.png', size: 25 * 1048576 + 1 })).toBe('size');
  });
});

describe('sanitizeFileName', () => {
  const bytes = (s: string) => new TextEncoder().encode(s).length;

  it('keeps a safe name exactly as sent, Thai letters and extension included', () => {
    for (const n of ['IMG_0001.JPG', 'มะม่วง ช้ำ 01.jpeg', 'a b (2).png', 'photo.v2.final.tiff', 'x.webp']) {
      expect(sanitizeFileName(n)).toBe(n);
    }
  });

  it('drops directories, forward and backward slashes alike', () => {
    expect(sanitizeFileName('../../etc/passwd.jpg')).toBe('passwd.jpg');
    expect(sanitizeFileName('C:\\Users\\me\\..\\mango.png')).toBe('mango.png');
    expect(sanitizeFileName('/abs/path/')).toBe(FALLBACK_FILE_NAME);
  });

  it('removes NUL, control, ANSI escape and bidi characters', () => {
    expect(sanitizeFileName('evil\u0000.jpg.png')).toBe('evil.jpg.png');
    expect(sanitizeFileName('\u001b[31mred\u001b[0m.jpg')).toBe('red.jpg');
    expect(sanitizeFileName('a\r\nb\t\u007f\u0085.png')).toBe('ab.png');
    expect(sanitizeFileName('invoice\u202egnp.exe')).toBe('invoicegnp.exe');
    expect(sanitizeFileName('\u2066x\u2069\u200e\u200f.jpg')).toBe('x.jpg');
  });

  it('turns names with nothing left, ".", ".." into the fallback', () => {
    for (const n of ['', '..', '.', '\u0000\u0000', '   ', 'a/..', '\u202e']) {
      expect(sanitizeFileName(n)).toBe(FALLBACK_FILE_NAME);
    }
  });

  it('replaces lone surrogates, keeps pairs', () => {
    expect(sanitizeFileName('a\ud800b.jpg')).toBe('a\ufffdb.jpg');
    expect(sanitizeFileName('🥭.jpg')).toBe('🥭.jpg');
  });

  it('cuts long names to 255 UTF-8 bytes on a code point, keeping the extension', () => {
    const long = sanitizeFileName('a'.repeat(200_000) + '.jpg');
    expect(bytes(long)).toBe(MAX_FILE_NAME_BYTES);
    expect(long).toBe('a'.repeat(251) + '.jpg');
    // Thai letters are 3 bytes each: 83 of them and ".png" make 253 bytes; 84 would make 256.
    const thai = sanitizeFileName('ม'.repeat(100) + '.png');
    expect(thai).toBe('ม'.repeat(83) + '.png');
    expect(bytes(thai)).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
    const exactly = 'b'.repeat(251) + '.jpg';
    expect(sanitizeFileName(exactly)).toBe(exactly);
    // no extension (or an absurd one): a plain cut
    expect(bytes(sanitizeFileName('c'.repeat(300)))).toBe(MAX_FILE_NAME_BYTES);
  });
});

describe('archiveEntryName', () => {
  it('keeps a safe path as it is', () => {
    for (const path of ['overlays/a.overlay.jpg', 'images/มะม่วง.png', "=1+1 (copy) 'x'!.png", 'data.csv'])
      expect(archiveEntryName(path)).toBe(path);
  });

  it('replaces what Windows refuses: < > : " \\ | ? *, control characters, trailing dots and spaces', () => {
    expect(archiveEntryName('overlays/a<b>:c"d|e?f*g.jpg')).toBe('overlays/a_b__c_d_e_f_g.jpg');
    expect(archiveEntryName('C:\\evil\u0000\u001f\u007f\u0085.png')).toBe('C__evil____.png');
    expect(archiveEntryName('x. /y ./z')).toBe('x__/y__/z');
    expect(archiveEntryName('../a')).toBe('__/a');
  });

  it('prefixes the device names Windows reserves, whatever the case or extension', () => {
    expect(archiveEntryName('overlays/CON.overlay.jpg')).toBe('overlays/_CON.overlay.jpg');
    expect(archiveEntryName('nul')).toBe('_nul');
    expect(archiveEntryName('Com1.png')).toBe('_Com1.png');
    expect(archiveEntryName('lpt9')).toBe('_lpt9');
    expect(archiveEntryName('console.png')).toBe('console.png');
    expect(archiveEntryName('com10.png')).toBe('com10.png');
  });
});

describe('exportStems and exportFileName', () => {
  it('gives each photo a safe stem, unique regardless of case, in order', () => {
    const stems = exportStems(['a.jpg', 'A.png', 'b<1>.jpeg', 'a.JPG', '.hidden', 'nul.jpg', 'x.y.png']);
    expect(stems).toEqual(['a', 'A_2', 'b_1_', 'a_3', '.hidden', '_nul', 'x.y']);
    expect(exportFileName(stems[6], '.fruit.png')).toBe('x.y.fruit.png');
  });
});
