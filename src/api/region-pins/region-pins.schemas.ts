/** The seed's region pin object; also the body of POST /api/region/{regionId}/pin. */
import { Type, type Static } from '@sinclair/typebox';
import { IdParam, NO_NUL_PATTERN } from '../params.ts';

export const RegionParams = Type.Object({ regionId: IdParam('region or working group id') });

export const RegionPinSchema = Type.Object({
  lat: Type.Number({ minimum: -90, maximum: 90 }),
  lon: Type.Number({ minimum: -180, maximum: 180 }),
  description: Type.String({ maxLength: 5000 }),
  status: Type.Integer({ enum: [0, 1], description: '0 inactive, 1 active' }),
}, { title: 'RegionPin' });
export type RegionPin = Static<typeof RegionPinSchema>;

export const RegionPinBody = Type.Object({
  lat: Type.Number({ minimum: -90, maximum: 90 }),
  lon: Type.Number({ minimum: -180, maximum: 180 }),
  description: Type.String({ maxLength: 5000, pattern: NO_NUL_PATTERN }),
  status: Type.Integer({ minimum: 0, maximum: 1, description: '0 inactive, 1 active' }),
}, { additionalProperties: false });
