/**
 * The members of the admin screen (`/admin/users`), organisation members and
 * above, with the checks of the client screen (page-access.ts, CSRF on every
 * form): a search by name or email, PAGE_SIZE a page in a stable order, and a
 * member's page — role and regions, live sessions, apps with access, sign-in
 * methods, recent security events — with the actions of member-actions.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { formToken } from '../../accounts/csrf.ts';
import { mayManageMember } from '../../accounts/member-status.ts';
import { searchMembers, type MemberRecord } from '../../accounts/member-search.ts';
import { roleName } from '../../accounts/roles.ts';
import { listSessionsOfUser } from '../../accounts/session-list.ts';
import { describeSignInMethods, type SignInMethods } from '../../accounts/sign-in-methods.ts';
import { findRegionIdsOfUser } from '../../accounts/users.repository.ts';
import { listAppsWithAccess } from '../../oauth/consent/app-access.repository.ts';
import { listSecurityEvents } from '../../ops/audit/audit-query.ts';
import { hasRefusedNameCharacters } from '../../text/control-characters.ts';
import { regionChoices } from '../admin/admin-view.ts';
import type { Translate } from '../i18n.ts';
import { pageSession } from '../page-access.ts';
import { deviceLabel } from '../security/security.page.ts';
import { memberActionRoutes } from './member-actions.ts';
import { dateFormatOf, MemberParams, MEMBERS_BASE, memberOrNotFound, memberPath, type MembersPageOptions } from './member-view.ts';

export const PAGE_SIZE = 25;
export const RECENT_EVENTS = 10;
const MAX_PAGE = 10_000;

const ListQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.String({ maxLength: 10 })),
  deleted: Type.Optional(Type.String({ maxLength: 10 })),
});

const MemberQuery = Type.Object({
  done: Type.Optional(Type.Union([Type.Literal('sessions'), Type.Literal('disabled'), Type.Literal('enabled')])),
  sessions: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
  grants: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
});

/** The list's address for `text` and `page`. */
function listLink(text: string, page: number): string {
  const params = new URLSearchParams();
  if (text !== '') params.set('q', text);
  if (page > 1) params.set('page', String(page));
  const search = params.toString();
  return search ? `${MEMBERS_BASE}?${search}` : MEMBERS_BASE;
}

/** The rows of the section "Sign-in methods": one per method the member can have. */
function signInRows(methods: SignInMethods, t: Translate): { label: string; value: string }[] {
  return [
    { label: t('members.method.password'), value: t(methods.password ? 'members.set' : 'members.notSet') },
    { label: t('members.method.oneTimeCodes'), value: t(methods.oneTimeCodes ? 'members.on' : 'members.off') },
    { label: t('members.method.passkeys'), value: String(methods.passkeys) },
  ];
}

export const membersPage: FastifyPluginAsyncTypebox<MembersPageOptions> = async (app, options) => {
  const { config, db, clock } = options;
  const access = { orgaOnly: true, returnTo: MEMBERS_BASE };

  app.get(MEMBERS_BASE, { schema: { querystring: ListQuery } }, async (request, reply) => {
    if (!(await pageSession(request, reply, access))) return reply;
    const t = reply.translator();
    const text = request.query.q?.trim() ?? '';
    const pageText = request.query.page?.trim() || '1';
    const page = /^[1-9]\d{0,4}$/.test(pageText) && Number(pageText) <= MAX_PAGE ? Number(pageText) : 1;
    // No name or address holds such a character (searchMembers finds nobody): said beside the field, as /admin/audit does.
    const refused = hasRefusedNameCharacters(text);
    const result = await searchMembers(db, text, PAGE_SIZE, (page - 1) * PAGE_SIZE);
    const deleted = request.query.deleted;
    return reply.render('admin-members', {
      query: text,
      queryError: refused ? t('members.error.q') : undefined,
      formError: refused ? t('members.invalid') : undefined,
      members: result.members.map((m) => ({ ...m, roleName: t(`members.role.${roleName(m.role)}`), href: memberPath(m.id) })),
      page,
      previous: page > 1 && !refused ? listLink(text, page - 1) : undefined,
      next: result.more ? listLink(text, page + 1) : undefined,
      notice: deleted !== undefined && /^\d{1,10}$/.test(deleted) ? t('members.deleted', { id: deleted }) : undefined,
      dateFormat: dateFormatOf(request),
    }, refused ? 400 : 200);
  });

  app.get(`${MEMBERS_BASE}/:id`, { schema: { params: MemberParams, querystring: MemberQuery } }, async (request, reply) => {
    const session = await pageSession(request, reply, access);
    if (!session) return reply;
    const member = await memberOrNotFound(db, reply, request.params.id);
    if (!member) return reply;
    const t = reply.translator();
    const { done, sessions = 0, grants = 0 } = request.query;
    return reply.render('admin-member', {
      ...(await memberDetails(member, t)),
      mayManage: mayManageMember(session.user, member),
      notice: done && t(`members.done.${done}`, { sessions, grants }),
      csrfToken: await formToken(request, reply, config),
      dateFormat: dateFormatOf(request),
    });
  });

  /** Everything the member page shows of `member`. */
  async function memberDetails(member: MemberRecord, t: Translate) {
    const now = clock();
    const [regions, labels, sessions, apps, methods, events] = await Promise.all([
      findRegionIdsOfUser(db, member.id),
      regionChoices(db).then((choices) => new Map(choices.map((r) => [r.id, r.label]))),
      listSessionsOfUser(db, member.id, now),
      listAppsWithAccess(db, member.id, now),
      describeSignInMethods(db, member.id),
      listSecurityEvents(db, { userId: member.id }, RECENT_EVENTS),
    ]);
    const named = (ids: readonly number[]) => ids.map((id) => labels.get(id) ?? `#${id}`);
    return {
      member,
      roleName: t(`members.role.${roleName(member.role)}`),
      memberOf: named(regions.member),
      ambassadorOf: named(regions.ambassador),
      homeRegion: member.homeRegionId === null ? undefined : named([member.homeRegionId])[0],
      sessions: sessions.map((s) => ({ ...s, device: deviceLabel(s, t) })),
      apps,
      signIn: signInRows(methods, t),
      events: events.events,
      auditHref: `/admin/audit?member=${member.id}`,
    };
  }

  await app.register(memberActionRoutes, options);
};
