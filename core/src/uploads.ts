/**
 * Upload rules (accepted types, sizes) of every front end, in one place. The product spec gives the
 * front ends different rules, so there is one rule per front end (product-spec.md sections 4, 5, 7):
 * the web dropzone accepts .jpg/.jpeg/.png by name, the K-Means page image/jpeg|png|jpg up to 5 MB,
 * the Crop page any image with no size check, the widget JPEG/PNG/WebP, the server and CLI every
 * format the decoder reads. Browser-safe: no Node imports.
 */

/** How a rule recognises an accepted file. */
export type UploadMatch =
  /** by file name extension only */
  | 'name'
  /** by MIME type only */
  | 'type'
  /** by MIME type, or by name when the browser gives no type */
  | 'type-or-name'
  /** any file the picker lets through (its `accept` filter only) */
  | 'any';

export interface UploadRule {
  match: UploadMatch;
  /** accepted extensions, lower case with the dot */
  extensions: readonly string[];
  /** accepted MIME types */
  mimeTypes: readonly string[];
  /** largest accepted file in bytes; undefined: no size check */
  maxBytes?: number;
  /** the file input's `accept` attribute */
  accept: string;
  /** the message for a refused type (the widget has its own, translated) */
  typeMessage?: string;
  /** the message for a file over maxBytes */
  sizeMessage?: string;
}

export type UploadRefusal = 'type' | 'size';

/** The fields of a File (or of a file on disk) the rules look at. */
export interface UploadCandidate {
  name: string;
  type?: string;
  size?: number;
}

const MB = 1024 * 1024;

/** Every web upload page's dropzone: .jpg, .jpeg, .png by file name (spec section 5). */
export const DROPZONE_UPLOAD: UploadRule = {
  match: 'name',
  extensions: ['.jpg', '.jpeg', '.png'],
  mimeTypes: ['image/jpeg', 'image/png'],
  accept: '.jpg,.jpeg,.png,image/jpeg,image/png',
  typeMessage: 'Only .jpg, .jpeg, and .png files are allowed.',
};

/** The K-Means page: image/jpeg, image/png, image/jpg up to 5 MB (5242880 bytes; spec sections 5, 7). */
export const KMEANS_UPLOAD: UploadRule = {
  match: 'type',
  extensions: ['.jpg', '.jpeg', '.png'],
  mimeTypes: ['image/jpeg', 'image/png', 'image/jpg'],
  maxBytes: 5 * MB,
  accept: 'image/jpeg,image/png,image/jpg',
  typeMessage: 'Unsupported file type. Please upload a JPG or PNG image.',
  sizeMessage: 'Image too large. Maximum allowed size is 5MB.',
};

/**
 * The Crop page: any image type, and no size check despite its 'Supports JPG, PNG, WEBP (Max 5MB)'
 * text (spec section 5).
 */
export const CROP_UPLOAD: UploadRule = {
  match: 'any',
  extensions: [],
  mimeTypes: [],
  accept: 'image/*',
};

/** The embeddable widget: JPEG, PNG, WebP by type, or by name when the browser gives no type. */
export const WIDGET_UPLOAD: UploadRule = {
  match: 'type-or-name',
  extensions: ['.jpg', '.jpeg', '.png', '.webp'],
  mimeTypes: ['image/jpeg', 'image/png', 'image/webp'],
  accept: 'image/jpeg,image/png,image/webp',
};

/** The server's default per-file limit in MB (MAX_UPLOAD_MB overrides it). */
export const SERVER_MAX_UPLOAD_MB = 25;

/**
 * The server's /api-py uploads and the CLI's inputs: the formats the decoder reads, by name. The
 * server's limit is configurable (MAX_UPLOAD_MB, default SERVER_MAX_UPLOAD_MB); the CLI has none.
 */
export const SERVER_UPLOAD: UploadRule = {
  match: 'name',
  extensions: ['.jpg', '.jpeg', '.png', '.webp', '.tif', '.tiff'],
  mimeTypes: ['image/jpeg', 'image/png', 'image/webp', 'image/tiff'],
  maxBytes: SERVER_MAX_UPLOAD_MB * MB,
  accept: '.jpg,.jpeg,.png,.webp,.tif,.tiff,image/jpeg,image/png,image/webp,image/tiff',
  typeMessage: 'Only .jpg, .jpeg, .png, .webp, .tif and .tiff images are accepted.',
};

/** Whether the name ends with one of the rule's extensions (case-insensitive). */
export function hasUploadExtension(rule: UploadRule, name: string): boolean {
  const lower = name.toLowerCase();
  return rule.extensions.some((ext) => lower.endsWith(ext));
}

/** Whether the file's type (and name, by the rule's match) is accepted; sizes are not looked at. */
export function isAcceptedType(rule: UploadRule, file: UploadCandidate): boolean {
  switch (rule.match) {
    case 'any':
      return true;
    case 'name':
      return hasUploadExtension(rule, file.name);
    case 'type':
      return rule.mimeTypes.includes(file.type ?? '');
    case 'type-or-name':
      return file.type ? rule.mimeTypes.includes(file.type) : hasUploadExtension(rule, file.name);
  }
}

/** Why the rule refuses the file ('type' first, then 'size'), or null when it accepts it. */
export function uploadRefusal(rule: UploadRule, file: UploadCandidate): UploadRefusal | null {
  if (!isAcceptedType(rule, file)) return 'type';
  if (rule.maxBytes !== undefined && (file.size ?? 0) > rule.maxBytes) return 'size';
  return null;
}

/** The rule's message for a refusal. */
export function refusalMessage(rule: UploadRule, refusal: UploadRefusal): string | undefined {
  return refusal === 'size' ? (rule.sizeMessage ?? rule.typeMessage) : rule.typeMessage;
}

/** Longest stored file name in UTF-8 bytes (the limit of common file systems). */
export const MAX_FILE_NAME_BYTES = 255;

/** The name used when nothing of the sent name is left. */
export const FALLBACK_FILE_NAME = 'unnamed';

// ANSI escape sequences (CSI `ESC [ ... final`, OSC `ESC ] ... BEL|ESC \`, and two-character escapes),
// removed whole so no `[31m` is left behind when the ESC goes.
// eslint-disable-next-line no-control-regex
const ANSI_ESCAPE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])/g;
// Control characters (C0 with NUL, DEL, C1), bidirectional controls (ALM, LRM, RLM, LRE..RLO, LRI..PDI)
// and the line/paragraph separators.
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

// Lone surrogates cannot be encoded faithfully (UTF-8, JSON to other languages): they become U+FFFD.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const utf8Length = (s: string): number => new TextEncoder().encode(s).length;

/** The longest prefix of `s`, whole code points only, that fits in `maxBytes` UTF-8 bytes. */
function truncateUtf8(s: string, maxBytes: number): string {
  let out = '';
  let bytes = 0;
  for (const ch of s) {
    const n = utf8Length(ch);
    if (bytes + n > maxBytes) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/**
 * A sent file name made safe to store, echo and write into an archive. A name that is already safe
 * comes back exactly as sent (extension and any script, e.g. Thai, included). Otherwise: directories
 * are dropped (the part after the last `/` or `\`), ANSI escapes, control (NUL included), bidi and
 * line-separator characters are removed, and the name is cut to MAX_FILE_NAME_BYTES UTF-8 bytes
 * keeping its extension. `.`, `..` and a name with nothing left become FALLBACK_FILE_NAME.
 */
export function sanitizeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  let safe = base.replace(ANSI_ESCAPE, '').replace(UNSAFE_CHARACTERS, '').replace(LONE_SURROGATE, '\ufffd');
  const bare = safe.trim();
  if (bare === '' || bare === '.' || bare === '..') return FALLBACK_FILE_NAME;
  if (utf8Length(safe) > MAX_FILE_NAME_BYTES) {
    const dot = safe.lastIndexOf('.');
    const ext = dot > 0 && safe.length - dot <= 16 ? safe.slice(dot) : '';
    safe = truncateUtf8(safe.slice(0, safe.length - ext.length), MAX_FILE_NAME_BYTES - utf8Length(ext)) + ext;
  }
  return safe;
}

// What Windows refuses in a file or folder name: < > : " \ | ? * and the control characters (C0, DEL, C1).
// eslint-disable-next-line no-control-regex
const WINDOWS_INVALID = /[<>:"\\|?*\u0000-\u001f\u007f-\u009f]/g;
// Device names Windows reserves, with any extension (`CON.overlay.jpg` names the console).
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(?:\.|$)/i;

/**
 * A path inside an archive (folders split by `/`) that every unzip can write, Windows included:
 * each character Windows refuses becomes `_`, as do trailing dots and spaces of a part, and a
 * device name (`CON`, `NUL`, `COM1`, ...) gets a leading `_`. Every zip the product writes names its
 * entries through here; a safe path comes back as it is.
 */
export function archiveEntryName(path: string): string {
  return path
    .split('/')
    .map((part) => {
      const safe = part.replace(WINDOWS_INVALID, '_').replace(/[. ]+$/, (end) => '_'.repeat(end.length));
      return WINDOWS_DEVICE.test(safe) ? `_${safe}` : safe;
    })
    .join('/');
}

/**
 * The stem each photo's files get in an export (`<stem>.overlay.jpg`, `<stem>.fruit.png`, ...): its
 * name without the extension, made safe for every unzip (`archiveEntryName`), unique in the export
 * regardless of case (names that differ only in case are one file on Windows and macOS): a later
 * photo of the same stem gets `_2`, `_3`, ... In the order of `names`.
 */
export function exportStems(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    const dot = name.lastIndexOf('.');
    const base = archiveEntryName((dot > 0 ? name.slice(0, dot) : name) || 'image');
    let stem = base;
    for (let n = 2; used.has(stem.toLowerCase()); n++) stem = `${base}_${n}`;
    used.add(stem.toLowerCase());
    return stem;
  });
}

/** The file of one of a photo's exported images: its stem and the image's suffix (`.overlay.jpg`). */
export const exportFileName = (stem: string, suffix: string): string => `${stem}${suffix}`;
