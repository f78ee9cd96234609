import { Type } from '@sinclair/typebox';
import { MAX_PATH_PARAM_LENGTH } from '../row-id.ts';

export const FeatureToggleParams = Type.Object({
  featureToggle: Type.String({ pattern: '^[a-zA-Z]+$', maxLength: MAX_PATH_PARAM_LENGTH, description: 'identifier of the toggle, e.g. petitionBanner' }),
});

export const FeatureToggleQuery = Type.Object({
  // No `default: null` here: Ajv's type coercion would turn that null into false.
  newState: Type.Optional(Type.Boolean({ description: 'true or false; omitted (the seed\'s default null): the toggle flips' })),
}, { additionalProperties: false });

export const FeatureToggleSchema = Type.Object({
  identifier: Type.String(),
  isActive: Type.Boolean(),
}, { title: 'FeatureToggle' });
