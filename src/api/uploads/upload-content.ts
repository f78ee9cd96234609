/**
 * What an upload really is: the type comes from the content (`file-type`),
 * never from the name. Images are decoded and re-encoded by `sharp`, which
 * writes no metadata, so no EXIF block (GPS position, camera serial), XMP,
 * ICC profile or comment survives; the EXIF orientation is applied to the
 * pixels first.
 *
 * Decoding and encoding cost grows with the pixels, not with the bytes: a
 * 200 KB AVIF can hold 49 megapixels of noise. So the header's dimensions are
 * checked before anything is decoded, every image is scaled down to fit
 * {@link MAX_IMAGE_SIDE}, and formats other than the four served inline are
 * encoded as JPEG (WebP when they have an alpha channel), never as PNG, whose
 * size has no bound on noise. The caller still checks the encoded size.
 *
 * The image work itself runs through the caller's queue (image-work-queue.ts)
 * with one libvips thread per image, so a burst of uploads cannot take every
 * CPU and every libuv thread from logins and token signing.
 */
import type { Sharp } from 'sharp';
import { onFirstUse } from '../../on-first-use.ts';

/**
 * sharp with libvips (about 25 MB of memory and a third of a second) loads
 * with the first image, not at start-up: most requests never need it. Its
 * process-wide settings: one thread per image (the queue decides how many
 * images at once), and no cache of decoded images held between uploads.
 */
const loadSharp = onFirstUse(() => import('sharp').then(({ default: sharp }) => {
  sharp.concurrency(1);
  sharp.cache(false);
  return sharp;
}));

/** file-type (about 0.04 s of CPU to load) with the first upload too. */
const loadFileType = onFirstUse(() => import('file-type'));

/**
 * Largest decoded image (all frames of an animation together): 25 megapixels,
 * more than a 24 MP camera's photo (6000×4000). A 300 KB PNG decoding to 40 MP
 * took 3.5 s of a core and 160 MB per upload; this bounds one upload's work.
 */
export const MAX_INPUT_PIXELS = 25_000_000;
/** Stored images fit within this square; smaller ones are never enlarged. */
export const MAX_IMAGE_SIDE = 2560;
const QUALITY = 85;

type OutputFormat = 'jpeg' | 'png' | 'webp' | 'gif';

/** Formats kept as they are (re-encoded); other decodable images become JPEG or WebP. */
const KEPT_FORMATS: Readonly<Record<string, OutputFormat>> = {
  'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'gif',
};
const MEDIA_TYPES: Readonly<Record<OutputFormat, string>> = {
  jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif',
};
/** sharp's bundled libvips reads AVIF but has no HEVC decoder: HEIC photos cannot be read. */
const HEVC_TYPES = new Set(['image/heic', 'image/heif', 'image/heic-sequence', 'image/heif-sequence']);
const IMAGE_EXTENSIONS = /\.(jpe?g|png|gif|webp|avif|heic|heif|tiff?|bmp)$/i;

export interface CleanContent { mimeType: string; content: Buffer; isImage: boolean }

/** An upload that cannot be stored; the message names the reason and is shown to the client. */
export class UnusableImage extends Error {}

/** Runs image work when the instance has room for it (image-work-queue.ts). */
export type RunImageWork = <T>(work: () => Promise<T>) => Promise<T>;

export async function cleanContent(filename: string, bytes: Buffer, runImageWork: RunImageWork): Promise<CleanContent> {
  const { fileTypeFromBuffer } = await loadFileType();
  const detected = await fileTypeFromBuffer(bytes);
  const mime = detected?.mime ?? 'application/octet-stream';
  if (mime.startsWith('image/')) return runImageWork(() => reencodeImage(mime, bytes));
  if (IMAGE_EXTENSIONS.test(filename)) throw new UnusableImage('is named as an image but is none');
  return { mimeType: mime, content: bytes, isImage: false };
}

async function reencodeImage(mime: string, bytes: Buffer): Promise<CleanContent> {
  const kept = KEPT_FORMATS[mime];
  const animated = kept === 'gif' || kept === 'webp';
  const { pixels, width, height, hasAlpha } = await readDimensions(mime, bytes, animated);
  if (pixels > MAX_INPUT_PIXELS) {
    throw new UnusableImage(`is too large an image: ${width}×${height} pixels; at most ${MAX_INPUT_PIXELS / 1_000_000} megapixels are accepted`);
  }
  const format = kept ?? (hasAlpha ? 'webp' : 'jpeg');
  const sharp = await loadSharp();
  try {
    const image = sharp(bytes, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS, animated })
      .autoOrient()
      .resize(MAX_IMAGE_SIDE, MAX_IMAGE_SIDE, { fit: 'inside', withoutEnlargement: true });
    const content = await encode(image, format).toBuffer();
    return { mimeType: MEDIA_TYPES[format], content, isImage: true };
  } catch {
    throw new UnusableImage(unreadable(mime));
  }
}

/** The header's dimensions, read without decoding the pixels. */
async function readDimensions(mime: string, bytes: Buffer, animated: boolean) {
  const sharp = await loadSharp();
  try {
    const metadata = await sharp(bytes, { animated, limitInputPixels: false }).metadata();
    const width = metadata.width ?? 0;
    const height = metadata.height ?? 0;
    return { pixels: width * height, width, height, hasAlpha: metadata.hasAlpha === true };
  } catch {
    throw new UnusableImage(unreadable(mime));
  }
}

function encode(image: Sharp, format: OutputFormat): Sharp {
  switch (format) {
    case 'jpeg': return image.jpeg({ quality: QUALITY });
    case 'webp': return image.webp({ quality: QUALITY });
    case 'gif': return image.gif();
    case 'png': return image.png();
  }
}

function unreadable(mime: string): string {
  return HEVC_TYPES.has(mime)
    ? 'is a HEIC/HEIF image, which cannot be read here; please upload JPEG, PNG, WebP, GIF or AVIF'
    : 'is not a readable image';
}

export function isServedInline(mimeType: string): boolean {
  return Object.hasOwn(KEPT_FORMATS, mimeType);
}
