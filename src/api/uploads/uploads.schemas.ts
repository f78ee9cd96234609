import { Type } from '@sinclair/typebox';

export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export const UploadBody = Type.Object({
  filename: Type.String({ minLength: 1, maxLength: 1000, description: 'shown to users; the type is taken from the content' }),
  body: Type.String({ minLength: 1, description: 'the file, base64 (RFC 4648 §4, padded)' }),
}, { additionalProperties: false });

export const UploadInfoSchema = Type.Object({
  url: Type.String({ description: '/api/uploads/<uuid>' }),
  uuid: Type.String(),
  filename: Type.String(),
  mimeType: Type.String({ description: 'detected from the content' }),
  filesize: Type.Integer({ description: 'bytes as stored (images after re-encoding)' }),
}, { title: 'UploadInfo' });

export const UploadParams = Type.Object({ uuid: Type.String({ pattern: UUID_PATTERN }) });
