/** The seed's region notification setting: element of the PATCH /api/notifications/regions body. */
import { Type, type Static } from '@sinclair/typebox';

export const RegionNotificationSettingSchema = Type.Object({
  id: Type.Integer({ description: 'id of a region or working group the caller is a member of' }),
  notifyByEmailAboutNewThreads: Type.Boolean({ description: 'email about every new thread of its forum' }),
}, { additionalProperties: false });

export const RegionNotificationSettingsBody = Type.Array(RegionNotificationSettingSchema, { maxItems: 1000 });
export type RegionNotificationSetting = Static<typeof RegionNotificationSettingSchema>;
