/**
 * What an upload really is: the type comes from the content (`file-type`),
 * never from the name. Images are decoded and re-encoded by `sharp`, which
 * writes no metadata, so no EXIF block (GPS position, camera serial) survives;
 * the EXIF orientation is applied to the pixels first.
 */
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';

/** Formats kept as they are (re-encoded); other decodable images become PNG. */
const KEPT_FORMATS: Readonly<Record<string, 'jpeg' | 'png' | 'webp' | 'gif'>> = {
  'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'gif',
};
const IMAGE_EXTENSIONS = /\.(jpe?g|png|gif|webp|avif|heic|heif|tiff?|bmp)$/i;

export interface CleanContent { mimeType: string; content: Buffer; isImage: boolean }

export class UndecodableImage extends Error {}

export async function cleanContent(filename: string, bytes: Buffer): Promise<CleanContent> {
  const detected = await fileTypeFromBuffer(bytes);
  const mime = detected?.mime ?? 'application/octet-stream';
  if (mime.startsWith('image/')) return reencodeImage(mime, bytes);
  if (IMAGE_EXTENSIONS.test(filename)) throw new UndecodableImage('the file is named as an image but is none');
  return { mimeType: mime, content: bytes, isImage: false };
}

async function reencodeImage(mime: string, bytes: Buffer): Promise<CleanContent> {
  const format = KEPT_FORMATS[mime];
  const animated = format === 'gif' || format === 'webp';
  try {
    const image = sharp(bytes, { failOn: 'error', limitInputPixels: 50_000_000, animated }).rotate();
    const content = await (format === 'jpeg' ? image.jpeg({ quality: 90 })
      : format === 'webp' ? image.webp({ quality: 90 })
        : format === 'gif' ? image.gif()
          : image.png()).toBuffer();
    return { mimeType: format ? mime : 'image/png', content, isImage: true };
  } catch {
    throw new UndecodableImage('the image cannot be decoded');
  }
}

export function isServedInline(mimeType: string): boolean {
  return Object.hasOwn(KEPT_FORMATS, mimeType);
}
