/**
 * Image uploads under the default MAX_UPLOAD_BYTES (1.5 MiB): re-encoding is
 * bounded in pixels and in the stored size, and no metadata survives it.
 */
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_IMAGE_SIDE, MAX_INPUT_PIXELS } from '../../src/api/uploads/upload-content.ts';
import { useTestApp } from '../helpers/fixture.ts';
import type { TestSession } from '../helpers/session.ts';

const t = useTestApp();
let user: TestSession;

beforeAll(async () => {
  user = await t.as('foodsaver');
});

function upload(filename: string, bytes: Buffer) {
  return t.call('POST', '/api/uploads', user, { filename, body: bytes.toString('base64') });
}

const countUploads = async () => (await t.db.selectFrom('uploads').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;

async function served(url: string): Promise<Buffer> {
  const response = await t.app.inject({ url });
  expect(response.statusCode).toBe(200);
  return response.rawPayload;
}

/** A JPEG COM segment right after SOI. */
function withJpegComment(jpeg: Buffer, text: string): Buffer {
  const comment = Buffer.from(text);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(comment.length + 2);
  return Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0xff, 0xfe]), length, comment, jpeg.subarray(2)]);
}

/** A PNG tEXt chunk right after IHDR (8-byte signature + 25-byte IHDR chunk). */
function withPngComment(png: Buffer, text: string): Buffer {
  const data = Buffer.concat([Buffer.from('tEXtComment\0'), Buffer.from(text, 'latin1')]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length - 4);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data));
  return Buffer.concat([png.subarray(0, 33), length, data, crc, png.subarray(33)]);
}

function noise(width: number, height: number): Buffer {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i += 1) pixels[i] = (i * 2654435761) >>> 24;
  return pixels;
}

describe('POST /api/uploads: images', () => {
  it('stores a large low-quality AVIF scaled into 2560×2560 as a JPEG within MAX_UPLOAD_BYTES, without its EXIF', async () => {
    expect(t.config.maxUploadBytes).toBe(1_572_864);
    const avif = await sharp(noise(3000, 3000), { raw: { width: 3000, height: 3000, channels: 3 } })
      .avif({ quality: 1, effort: 0 }).withExif({ IFD0: { Make: 'SpyCam' } }).toBuffer();
    expect(avif.length).toBeLessThan(200_000);
    expect(avif.includes(Buffer.from('SpyCam'))).toBe(true);

    const response = await upload('noise.avif', avif);
    expect(response.statusCode, response.body).toBe(200);
    const info = response.json();
    expect(info).toMatchObject({ filename: 'noise.avif', mimeType: 'image/jpeg' });
    expect(info.filesize).toBeLessThanOrEqual(t.config.maxUploadBytes);
    const stored = await served(info.url);
    expect(stored.length).toBe(info.filesize);
    const metadata = await sharp(stored).metadata();
    expect(metadata).toMatchObject({ format: 'jpeg', width: MAX_IMAGE_SIDE, height: MAX_IMAGE_SIDE });
    expect(metadata.exif).toBeUndefined();
    expect(stored.includes(Buffer.from('SpyCam'))).toBe(false);
  });

  it('scales a large PNG down, keeping its format and aspect ratio, and never enlarges a small one', async () => {
    const large = await sharp({ create: { width: 6000, height: 3000, channels: 3, background: { r: 30, g: 160, b: 90 } } }).png().toBuffer();
    const response = await upload('wide.png', large);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().mimeType).toBe('image/png');
    expect(await sharp(await served(response.json().url)).metadata()).toMatchObject({ format: 'png', width: 2560, height: 1280 });

    const small = await sharp({ create: { width: 30, height: 20, channels: 3, background: { r: 1, g: 2, b: 3 } } }).png().toBuffer();
    const kept = await upload('small.png', small);
    expect(await sharp(await served(kept.json().url)).metadata()).toMatchObject({ width: 30, height: 20 });
  });

  it('refuses an image of more than 25 megapixels (a 40 MP PNG too) with 400 before decoding it, storing nothing', async () => {
    const before = await countUploads();
    const side = Math.ceil(Math.sqrt(MAX_INPUT_PIXELS)) + 1;
    const huge = await sharp({ create: { width: side, height: side, channels: 3, background: { r: 0, g: 0, b: 0 } } }).png().toBuffer();
    expect(huge.length).toBeLessThan(t.config.maxUploadBytes);
    const response = await upload('huge.png', huge);
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([{
      field: 'body/body', message: `is too large an image: ${side}×${side} pixels; at most 25 megapixels are accepted`,
    }]);
    // The reported case: a small PNG that decodes to 39.7 megapixels.
    const reported = await sharp({ create: { width: 7700, height: 5160, channels: 3, background: { r: 0, g: 0, b: 0 } } }).png().toBuffer();
    expect((await upload('reported.png', reported)).statusCode).toBe(400);
    expect(await countUploads()).toBe(before);
  });

  it('stores an image with transparency that is none of the four inline formats as WebP, keeping the alpha channel', async () => {
    const avif = await sharp({ create: { width: 40, height: 30, channels: 4, background: { r: 10, g: 200, b: 30, alpha: 0.5 } } })
      .avif().withExif({ IFD0: { Make: 'SpyCam' } }).toBuffer();
    const response = await upload('glass.avif', avif);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().mimeType).toBe('image/webp');
    const stored = await served(response.json().url);
    expect(await sharp(stored).metadata()).toMatchObject({ format: 'webp', hasAlpha: true, width: 40, height: 30 });
    expect(stored.includes(Buffer.from('SpyCam'))).toBe(false);
  });

  it('drops XMP, ICC profiles and comments, not only EXIF', async () => {
    const xmp = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
      + '<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>SecretXmpAuthor</dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>';
    const create = { create: { width: 16, height: 16, channels: 3 as const, background: { r: 200, g: 10, b: 10 } } };
    const jpeg = await sharp(create).jpeg().withIccProfile('p3').withXmp(xmp).toBuffer();
    const png = await sharp(create).png().withIccProfile('p3').withXmp(xmp).toBuffer();
    const inputs: Array<[string, Buffer]> = [['meta.jpg', withJpegComment(jpeg, 'SecretComment')], ['meta.png', withPngComment(png, 'SecretComment')]];
    for (const [filename, input] of inputs) {
      const before = await sharp(input).metadata();
      expect(before.icc, filename).toBeDefined();
      expect(before.xmp, filename).toBeDefined();
      expect(input.includes(Buffer.from('SecretComment')), filename).toBe(true);
      if (filename.endsWith('.png')) expect(before.comments).toEqual([{ keyword: 'Comment', text: 'SecretComment' }]);

      const response = await upload(filename, input);
      expect(response.statusCode, response.body).toBe(200);
      const stored = await served(response.json().url);
      const after = await sharp(stored).metadata();
      expect([after.icc, after.xmp, after.exif, after.comments], filename).toEqual([undefined, undefined, undefined, undefined]);
      for (const secret of ['SecretXmpAuthor', 'SecretComment', 'Display P3']) {
        expect(stored.includes(Buffer.from(secret)), `${filename}: ${secret}`).toBe(false);
      }
    }
  });

  it('refuses HEIC with 400 and says so: the bundled libvips has no HEVC decoder', async () => {
    const before = await countUploads();
    const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic'), Buffer.alloc(4), Buffer.from('mif1heic')]);
    const heic = Buffer.concat([ftyp, Buffer.alloc(64, 0)]);
    const response = await upload('IMG_0001.HEIC', heic);
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([{
      field: 'body/body', message: 'is a HEIC/HEIF image, which cannot be read here; please upload JPEG, PNG, WebP, GIF or AVIF',
    }]);
    expect(await countUploads()).toBe(before);
  });
});
