/** `/api/uploads` (SPEC-API): store a file; serve it back to anyone by its uuid. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { requireActor } from '../actor.ts';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { RETRY_AFTER, withHeaders } from '../plugin/response-headers.ts';
import { assertPreconditions, assertValidInput, assertValidParams } from '../plugin/validation-order.ts';
import { ImageWorkQueue } from './image-work-queue.ts';
import { isServedInline } from './upload-content.ts';
import { UploadBody, UploadInfoSchema, UploadParams } from './uploads.schemas.ts';
import { getUpload, isUploadCurrent, storeUpload, uploadEtag } from './uploads.service.ts';

const binary = { schema: { type: 'string', format: 'binary' } };

/** The headers of the stored file and of its 304: an upload's bytes never change. */
const CACHED_FOREVER = {
  'ETag': { type: 'string', description: 'the upload\'s entity tag, for If-None-Match' },
  'Cache-Control': { type: 'string', description: 'public, max-age=31536000, immutable' },
} as const;

/** The bytes as stored, with the media type detected at upload: images inline, any other type as an attachment. */
const StoredFileResponse = withHeaders(Type.Unsafe<Buffer>({
  description: 'the file as stored: image/jpeg, image/png, image/webp or image/gif inline; any other type as an attachment',
  content: { 'image/*': binary, '*/*': binary },
}), CACHED_FOREVER);

/** The body field whose half surrogate pairs are taken (route-config.ts `halfSurrogatesIn`). */
const FILE_NAME_FIELD: ReadonlySet<string> = new Set(['/filename']);

/** Refused for now: the member's upload rate (429) or the server's image work (503). */
const BusyProblemSchema = withHeaders(ProblemSchema, RETRY_AFTER);

export interface UploadRoutesOptions {
  config: Config; db: DB; clock: Clock;
  /** This instance's queue of image work; tests pass their own to watch or hold it. */
  imageWork?: ImageWorkQueue | undefined;
}

export const uploadRoutes: FastifyPluginAsyncTypebox<UploadRoutesOptions> = async (api, { config, db, clock, imageWork }) => {
  const images = imageWork ?? new ImageWorkQueue();
  api.post('/uploads', {
    // A file name may hold half a surrogate pair, as file systems allow: stored as U+FFFD (uploads.service.ts).
    config: { auth: 'required', halfSurrogatesIn: FILE_NAME_FIELD },
    // Room for base64 (4/3) and JSON around it: a file somewhat over the limit
    // gets the 400 that names the limit; a body far beyond it is cut off (413).
    bodyLimit: Math.ceil(config.maxUploadBytes * 4 / 3) * 2 + 64 * 1024,
    schema: {
      tags: ['uploads'],
      operationId: 'createUpload',
      summary: 'Upload a file (base64); images are re-encoded without metadata; 429/503 with Retry-After when the user or the server is busy',
      body: UploadBody,
      response: {
        // 409 member.deleted: the caller was deleted at that moment.
        200: UploadInfoSchema, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 409: ProblemSchema, 413: ProblemSchema,
        429: BusyProblemSchema, 503: BusyProblemSchema,
      },
    },
  }, async (request) => {
    const actor = await requireActor(request);
    assertPreconditions(request);
    return storeUpload(db, clock, actor, request.body, { maxBytes: config.maxUploadBytes, images });
  });

  api.get('/uploads/:uuid', {
    attachValidation: true,
    schema: {
      tags: ['uploads'],
      operationId: 'getUpload',
      summary: 'The uploaded file, byte for byte as stored; public and immutable; 304 when If-None-Match names it',
      params: UploadParams,
      response: { 200: StoredFileResponse, 304: withHeaders(Type.Null({ description: 'the copy named by If-None-Match is current' }), CACHED_FOREVER), 400: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request, reply) => {
    assertValidParams(request);
    const { uuid } = request.params;
    // RFC 9110 §15.4.5: a 304 carries the Cache-Control and ETag the 200 would.
    const cacheHeaders = { 'cache-control': 'public, max-age=31536000, immutable', etag: uploadEtag(uuid) };
    if (await isUploadCurrent(db, uuid, request.headers['if-none-match'])) {
      assertValidInput(request);
      return reply.code(304).headers(cacheHeaders).send();
    }
    const upload = await getUpload(db, uuid);
    assertValidInput(request);
    const disposition = isServedInline(upload.mimeType) ? 'inline' : 'attachment';
    return reply
      .header('content-type', upload.mimeType)
      .header('content-length', upload.content.length)
      .headers(cacheHeaders)
      .header('content-disposition', `${disposition}; filename*=UTF-8''${encodeURIComponent(upload.filename)}`)
      // A stored file is never a page: no script, no plugin, even if a browser sniffs it.
      .header('content-security-policy', "default-src 'none'; sandbox")
      .send(upload.content);
  });
};
