import { Type } from '@sinclair/typebox';
import { IdParam } from '../params.ts';

export const ForumRegionParams = Type.Object({ regionId: IdParam('region or working group id') });

export const FollowQuery = Type.Object({
  isFollowing: Type.Boolean({ description: 'true: email me about every new thread in this forum; false: stop' }),
}, { additionalProperties: false });

export const ForumSubscriptionSchema = Type.Object({
  isFollowing: Type.Boolean({ description: 'whether the caller gets an email about every new thread in this forum' }),
}, { title: 'ForumSubscription' });

