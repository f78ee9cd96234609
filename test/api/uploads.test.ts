/** Uploading (SPEC-API POST /api/uploads): re-encoded images without metadata, other files byte for byte, sizes, names, refusals. Serving: uploads-serving.test.ts. */
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/fixture.ts';
import type { TestSession } from '../helpers/session.ts';

const MAX = 4096;
const t = useTestApp({ env: { MAX_UPLOAD_BYTES: String(MAX) } });
let user: TestSession;
let jpegWithGps: Buffer;

beforeAll(async () => {
  user = await t.as('foodsaver');
  jpegWithGps = await sharp({ create: { width: 24, height: 16, channels: 3, background: { r: 200, g: 40, b: 40 } } })
    .jpeg()
    .withExif({
      IFD0: { Make: 'SpyCam', Model: 'Tracker 3000', Copyright: 'Secret Person' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '52/1 31/1 12/1', GPSLongitudeRef: 'E', GPSLongitude: '13/1 24/1 36/1' },
    })
    .toBuffer();
});

function upload(payload: unknown, session: TestSession | null = user) {
  return t.call('POST', '/api/uploads', session, payload);
}

const countUploads = async () => (await t.db.selectFrom('uploads').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;

describe('POST /api/uploads', () => {
  it('re-encodes a JPEG so that no EXIF or GPS data survives, and answers the seed-less shape of SPEC-API', async () => {
    const input = await sharp(jpegWithGps).metadata();
    expect(input.exif).toBeDefined();
    expect(jpegWithGps.includes(Buffer.from('SpyCam'))).toBe(true);

    const response = await upload({ filename: 'holiday.jpg', body: jpegWithGps.toString('base64') });
    expect(response.statusCode).toBe(200);
    const info = response.json();
    expect(Object.keys(info).sort()).toEqual(['filename', 'filesize', 'mimeType', 'url', 'uuid']);
    expect(info).toMatchObject({ url: `/api/uploads/${info.uuid}`, filename: 'holiday.jpg', mimeType: 'image/jpeg' });
    expect(info.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const served = await t.app.inject({ url: info.url });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/jpeg');
    expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(served.rawPayload.length).toBe(info.filesize);
    const output = await sharp(served.rawPayload).metadata();
    expect(output).toMatchObject({ format: 'jpeg', width: 24, height: 16 });
    expect(output.exif).toBeUndefined();
    for (const secret of ['SpyCam', 'Tracker', 'Secret Person', 'Exif']) {
      expect(served.rawPayload.includes(Buffer.from(secret)), secret).toBe(false);
    }
  });

  it.each(['png', 'webp', 'gif', 'tiff'] as const)('re-encodes a %s image without its metadata', async (format) => {
    const input = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 0, g: 90, b: 200 } } })
      .toFormat(format).withExif({ IFD0: { Make: 'SpyCam' } }).toBuffer();
    // libvips writes EXIF into PNG and WebP (GIF and TIFF here only test the type handling).
    if (format === 'png' || format === 'webp') expect(input.includes(Buffer.from('SpyCam'))).toBe(true);
    const response = await upload({ filename: `pic.${format}`, body: input.toString('base64') });
    expect(response.statusCode).toBe(200);
    // TIFF is none of the four formats served inline: without alpha it becomes JPEG.
    const expectedType = format === 'tiff' ? 'image/jpeg' : `image/${format}`;
    expect(response.json().mimeType).toBe(expectedType);
    const served = await t.app.inject({ url: response.json().url });
    expect(served.headers['content-type']).toBe(expectedType);
    const output = await sharp(served.rawPayload).metadata();
    expect(output.exif).toBeUndefined();
    expect(served.rawPayload.includes(Buffer.from('SpyCam'))).toBe(false);
  });

  it('stores other files byte for byte with the type found in the content, whatever the name says', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1'), Buffer.from([0, 1, 2, 255, 254]), Buffer.from('\n%%EOF\n')]);
    const response = await upload({ filename: 'sub/dir/../plan.txt', body: pdf.toString('base64') });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ filename: 'plan.txt', mimeType: 'application/pdf', filesize: pdf.length });
    const served = await t.app.inject({ url: response.json().url });
    expect(served.rawPayload.equals(pdf)).toBe(true);
    expect(served.headers['content-type']).toBe('application/pdf');
    expect(served.headers['content-disposition']).toBe("attachment; filename*=UTF-8''plan.txt");
    expect(served.headers['content-security-policy']).toBe("default-src 'none'; sandbox");

    const text = Buffer.from('<script>alert(1)</script>');
    const unknown = await upload({ filename: 'notes', body: text.toString('base64') });
    expect(unknown.json()).toMatchObject({ mimeType: 'application/octet-stream', filesize: text.length });
    expect((await t.app.inject({ url: unknown.json().url })).rawPayload.equals(text)).toBe(true);
  });

  it('accepts a file of exactly MAX_UPLOAD_BYTES and refuses one byte more with 400', async () => {
    const exact = Buffer.alloc(MAX, 7);
    expect((await upload({ filename: 'a.bin', body: exact.toString('base64') })).statusCode).toBe(200);
    const before = await countUploads();
    const over = await upload({ filename: 'a.bin', body: Buffer.alloc(MAX + 1, 7).toString('base64') });
    expect(over.statusCode).toBe(400);
    expect(over.json().errors).toEqual([{ field: 'body/body', message: `the file must not be larger than ${MAX} bytes` }]);
    const far = await upload({ filename: 'a.bin', body: Buffer.alloc(MAX * 40, 7).toString('base64') });
    expect(far.statusCode).toBe(413);
    expect(await countUploads()).toBe(before);
  });

  it('refuses an image whose re-encoded form is still over MAX_UPLOAD_BYTES with 400, storing nothing', async () => {
    const noise = Buffer.alloc(300 * 300 * 3);
    for (let i = 0; i < noise.length; i += 1) noise[i] = (i * 2654435761) >>> 24;
    const avif = await sharp(noise, { raw: { width: 300, height: 300, channels: 3 } }).avif({ quality: 1, effort: 0 }).toBuffer();
    expect(avif.length).toBeLessThanOrEqual(MAX);
    const before = await countUploads();
    const response = await upload({ filename: 'noise.avif', body: avif.toString('base64') });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([{
      field: 'body/body', message: `the image is still larger than ${MAX} bytes after re-encoding (at most 2560×2560 pixels)`,
    }]);
    expect(await countUploads()).toBe(before);
  });

  it('cuts a long file name after 255 characters, never inside an emoji, drops control characters and bidirectional overrides, and answers, stores and serves the same name', async () => {
    const cases: Array<[string, string]> = [
      ['a' + '\u{1F600}'.repeat(300), 'a' + '\u{1F600}'.repeat(254)],
      ['broken\uD83D.txt', 'broken\uFFFD.txt'],
      ['  dir\\spaced name.txt  ', 'spaced name.txt'],
      // Control characters and bidirectional overrides go (docs/security.md "Spoofed names"): "invoiceexe.jpg" is what U+202E would show.
      ['invoice\u202Egpj.exe', 'invoicegpj.exe'],
      ['a\u0085b\u009Bc\u2067d\tשלום.txt', 'abcdשלום.txt'],
    ];
    for (const [sent, expected] of cases) {
      const response = await upload({ filename: sent, body: Buffer.from('x').toString('base64') });
      expect(response.statusCode, response.body).toBe(200);
      const info = response.json();
      expect(info.filename).toBe(expected);
      expect([...info.filename].length).toBeLessThanOrEqual(255);
      const row = await t.db.selectFrom('uploads').select('filename').where('uuid', '=', info.uuid).executeTakeFirstOrThrow();
      expect(row.filename).toBe(expected);
      const served = await t.app.inject({ url: info.url });
      expect(served.headers['content-disposition']).toBe(`attachment; filename*=UTF-8''${encodeURIComponent(expected)}`);
    }
  });

  it.each([
    ['not a multiple of 4', 'abc'],
    ['whitespace', 'YWJj ZGVm'],
    ['a line break', 'YWJj\nZGVm'],
    ['the URL alphabet', 'ab-_'],
    ['a data: prefix', 'data:image/png;base64,YWJj'],
    ['padding inside', 'YQ==YWJj'],
    ['an empty string', ''],
    ['non-zero pad bits', 'YR=='],
    ['missing padding', 'YQ'],
    ['a lone padding character', '===='],
  ])('refuses base64 with %s (400), storing nothing', async (_name, body) => {
    const before = await countUploads();
    const response = await upload({ filename: 'x.bin', body });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'request.invalid' });
    expect(await countUploads()).toBe(before);
  });

  it('refuses missing or empty fields and images that do not decode (400)', async () => {
    const before = await countUploads();
    const valid = Buffer.from('hello').toString('base64');
    for (const payload of [{ body: valid }, { filename: 'a.txt' }, { filename: '', body: valid }, { filename: '///', body: valid }, {}]) {
      expect((await upload(payload)).statusCode, JSON.stringify(payload)).toBe(400);
    }
    const brokenJpeg = Buffer.concat([jpegWithGps.subarray(0, 40), Buffer.alloc(200, 0)]);
    const broken = await upload({ filename: 'photo.jpg', body: brokenJpeg.toString('base64') });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().errors).toEqual([{ field: 'body/body', message: 'is not a readable image' }]);
    const disguised = await upload({ filename: 'photo.PNG', body: Buffer.from('plain text, no picture').toString('base64') });
    expect(disguised.statusCode).toBe(400);
    expect(await countUploads()).toBe(before);
  });

  it('answers 401 when logged out', async () => {
    const response = await upload({ filename: 'a.txt', body: 'YWJj' }, null);
    expect(response.statusCode).toBe(401);
  });
});
