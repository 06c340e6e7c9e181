import { describe, expect, it } from 'vitest';
import {
  CROP_UPLOAD,
  DROPZONE_UPLOAD,
  KMEANS_UPLOAD,
  SERVER_UPLOAD,
  WIDGET_UPLOAD,
  refusalMessage,
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
