/**
 * The database as Kysely sees it: the union of every area's tables. Each area
 * declares its own tables beside its code and adds them here.
 */
import type { BasketsTables } from '../api/baskets/baskets.tables.ts';
import type { FeatureTogglesTables } from '../api/feature-toggles/feature-toggles.tables.ts';
import type { PetitionTables } from '../api/petition/petition.tables.ts';
import type { PollsTables } from '../api/polls/polls.tables.ts';
import type { UploadsTables } from '../api/uploads/uploads.tables.ts';
import type { AccountsTables } from '../accounts/accounts.tables.ts';
import type { OneTimeCodeTables } from '../accounts/one-time-codes/one-time-codes.tables.ts';
import type { PasskeyCeremonyTables } from '../accounts/passkeys/passkeys.tables.ts';
import type { MailTables } from '../mail/mail.tables.ts';
import type { BackchannelTables } from '../oauth/backchannel/backchannel.tables.ts';
import type { OAuthTables } from '../oauth/oauth.tables.ts';
import type { ContentTables } from '../api/contents/contents.tables.ts';
import type { ForumTables } from '../api/forum/forum.tables.ts';
import type { QuizTables } from '../api/quiz/quiz.tables.ts';
import type { RegionPinTables } from '../api/region-pins/region-pins.tables.ts';
import type { ReportsTables } from '../api/reports/reports.tables.ts';
import type { StoresTables } from '../api/stores/stores.tables.ts';
import type { AuditTables } from '../ops/audit/audit.tables.ts';

export interface Database extends AccountsTables, MailTables, OAuthTables, BackchannelTables,
  UploadsTables, BasketsTables, PollsTables, FeatureTogglesTables, PetitionTables,
  StoresTables, QuizTables, ReportsTables, RegionPinTables, ForumTables, ContentTables, AuditTables,
  OneTimeCodeTables, PasskeyCeremonyTables {}
