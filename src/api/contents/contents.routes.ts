/**
 * Content entries: `POST /api/contents`, `DELETE /api/contents/{contentId}`,
 * `PATCH /api/content/{contentId}` (the seed's singular), and the supporting
 * `GET /api/contents/{contentId}`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { requireActor } from '../actor.ts';
import { assertValidInput, assertValidParams } from '../plugin/validation-order.ts';
import { EmptyObject } from '../params.ts';
import { pathId } from '../row-id.ts';
import { ContentEntrySchema, ContentIdSchema, ContentParams, CreateContentBody, MAX_BODY_CHARACTERS, UpdateContentBody } from './contents.schemas.ts';
import { changeContent, createContent, readContent, removeContent } from './contents.service.ts';

export interface ContentRoutesOptions { db: DB; clock: Clock }

const tags = ['contents'];

/**
 * Room for the longest body the schema allows, however it is written: the schema counts code points, and
 * one takes up to twelve bytes in JSON (an emoji escaped as a surrogate pair, `\ud83d\ude00`, as Python's
 * `json.dumps` writes it; four as UTF-8); the name, title and the JSON around them fit in 64 KiB. Beyond
 * this a request is cut off unread (413), as beyond the server's 1 MiB elsewhere.
 */
const CONTENT_BODY_LIMIT = MAX_BODY_CHARACTERS * 12 + 64 * 1024;

export const contentRoutes: FastifyPluginAsyncTypebox<ContentRoutesOptions> = async (api, { db, clock }) => {
  api.post('/contents', {
    config: { auth: 'required' },
    bodyLimit: CONTENT_BODY_LIMIT,
    attachValidation: true,
    schema: {
      tags,
      operationId: 'createContent',
      summary: 'Create a content entry',
      description: 'Orga only. name, title and body must be non-empty; HTML tags are removed from name and title.',
      body: CreateContentBody,
      response: { 200: ContentIdSchema, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    return createContent(db, clock, await requireActor(request), request.body, (errors) => assertValidInput(request, errors));
  });

  api.get('/contents/:contentId', {
    attachValidation: true,
    schema: {
      tags,
      operationId: 'getContent',
      summary: 'A content entry (public)',
      params: ContentParams,
      response: { 200: ContentEntrySchema, 400: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    return readContent(db, pathId(request.params.contentId), () => assertValidInput(request));
  });

  api.delete('/contents/:contentId', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags,
      operationId: 'deleteContent',
      summary: 'Delete a content entry',
      description: 'Orga only.',
      params: ContentParams,
      response: { 200: EmptyObject, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    await removeContent(db, await requireActor(request), pathId(request.params.contentId), () => assertValidInput(request));
    return {};
  });

  api.patch('/content/:contentId', {
    config: { auth: 'required' },
    bodyLimit: CONTENT_BODY_LIMIT,
    attachValidation: true,
    schema: {
      tags,
      operationId: 'editContent',
      summary: 'Change some fields of a content entry; sets lastModified',
      description: 'Orga only. Any of name, title, body; HTML tags are removed from name and title.',
      params: ContentParams,
      body: UpdateContentBody,
      response: { 200: ContentEntrySchema, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    return changeContent(db, clock, await requireActor(request), pathId(request.params.contentId), request.body, (errors) => assertValidInput(request, errors));
  });
};
