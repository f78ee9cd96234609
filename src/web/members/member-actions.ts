/**
 * The actions of a member's page (`/admin/users/<id>`), each a POST form with
 * a CSRF token, each a security event: end every session, disable, enable,
 * and delete — the last behind a page where the member's email is typed
 * exactly. Only members of a lower role than the acting one, never oneself
 * (member-status.ts `mayManageMember`). A refusal changes nothing.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formToken, isValidFormToken } from '../../accounts/csrf.ts';
import { deleteMember } from '../../accounts/member-deletion.ts';
import type { MemberRecord } from '../../accounts/member-search.ts';
import { disableMember, enableMember, endMemberSessions, mayManageMember } from '../../accounts/member-status.ts';
import { logSecurityEvent } from '../../ops/security-events.ts';
import { noteAccessDenied } from '../access-denied.ts';
import { pageSession } from '../page-access.ts';
import { MemberParams, MEMBERS_BASE, memberOrNotFound, memberPath, refuse, renderMemberNotFound, type MembersPageOptions } from './member-view.ts';

const ActionForm = Type.Object({ csrf_token: Type.Optional(Type.String({ maxLength: 200 })) });
const DeleteForm = Type.Object({
  csrf_token: Type.Optional(Type.String({ maxLength: 200 })),
  email: Type.Optional(Type.String({ maxLength: 400 })),
});

export const memberActionRoutes: FastifyPluginAsyncTypebox<MembersPageOptions> = async (app, { config, db, clock }) => {
  const access = { orgaOnly: true, returnTo: MEMBERS_BASE };

  /** The acting session and the member when the request may change them; otherwise the answer is sent. */
  const permitted = async (request: FastifyRequest, reply: FastifyReply, idText: string, csrfToken: string | undefined, checkCsrf = true) => {
    const session = await pageSession(request, reply, access);
    if (!session) return undefined;
    const member = await memberOrNotFound(db, reply, idText);
    if (!member) return undefined;
    const refusal = checkCsrf && !(await isValidFormToken(request, csrfToken)) ? 'members.csrf'
      : mayManageMember(session.user, member) ? undefined : 'members.notAllowed';
    if (refusal === undefined) return { session, member };
    noteAccessDenied(request, { userId: session.user.id, reason: refusal === 'members.csrf' ? 'csrf' : 'not-allowed', targetUserId: member.id });
    await refuse(reply, member, 403, refusal);
    return undefined;
  };

  const done = (reply: FastifyReply, member: MemberRecord, what: string, counts = { sessionsEnded: 0, grantsRevoked: 0 }) =>
    reply.redirect(`${memberPath(member.id)}?done=${what}&sessions=${counts.sessionsEnded}&grants=${counts.grantsRevoked}`, 303);

  app.post(`${MEMBERS_BASE}/:id/sessions/end`, { schema: { params: MemberParams, body: ActionForm } }, async (request, reply) => {
    const allowed = await permitted(request, reply, request.params.id, request.body.csrf_token);
    if (!allowed) return reply;
    const { session, member } = allowed;
    const ended = await endMemberSessions(db, member.id, clock());
    logSecurityEvent(request.events, { event: 'account.member.sessions_ended', userId: member.id, actorId: session.user.id, ...ended });
    return done(reply, member, 'sessions', ended);
  });

  app.post(`${MEMBERS_BASE}/:id/disable`, { schema: { params: MemberParams, body: ActionForm } }, async (request, reply) => {
    const allowed = await permitted(request, reply, request.params.id, request.body.csrf_token);
    if (!allowed) return reply;
    const { session, member } = allowed;
    const result = await disableMember(db, member.id, clock());
    if (!result) return renderMemberNotFound(reply);
    if (!result.changed) return refuse(reply, member, 409, 'members.alreadyDisabled');
    const { sessionsEnded, grantsRevoked } = result;
    logSecurityEvent(request.events, { event: 'account.member.disabled', userId: member.id, actorId: session.user.id, sessionsEnded, grantsRevoked });
    return done(reply, member, 'disabled', result);
  });

  app.post(`${MEMBERS_BASE}/:id/enable`, { schema: { params: MemberParams, body: ActionForm } }, async (request, reply) => {
    const allowed = await permitted(request, reply, request.params.id, request.body.csrf_token);
    if (!allowed) return reply;
    const { session, member } = allowed;
    const result = await enableMember(db, member.id);
    if (!result) return renderMemberNotFound(reply);
    if (!result.changed) return refuse(reply, member, 409, 'members.alreadyEnabled');
    logSecurityEvent(request.events, { event: 'account.member.enabled', userId: member.id, actorId: session.user.id });
    return done(reply, member, 'enabled');
  });

  const deletePage = async (request: FastifyRequest, reply: FastifyReply, member: MemberRecord, page: { typed?: string; error?: string } = {}, status = 200) => {
    const t = reply.translator();
    return reply.render('admin-member-delete', {
      member,
      heading: t('members.deleteTitle', { name: `${member.firstName} ${member.lastName}` }),
      action: `${memberPath(member.id)}/delete`,
      csrfToken: await formToken(request, reply, config),
      ...page,
    }, status);
  };

  app.get(`${MEMBERS_BASE}/:id/delete`, { schema: { params: MemberParams } }, async (request, reply) => {
    const allowed = await permitted(request, reply, request.params.id, undefined, false);
    return allowed ? deletePage(request, reply, allowed.member) : reply;
  });

  app.post(`${MEMBERS_BASE}/:id/delete`, { schema: { params: MemberParams, body: DeleteForm } }, async (request, reply) => {
    const allowed = await permitted(request, reply, request.params.id, request.body.csrf_token);
    if (!allowed) return reply;
    const { session, member } = allowed;
    const typed = request.body.email ?? '';
    if (typed.trim() !== member.email) return deletePage(request, reply, member, { typed, error: reply.translator()('members.deleteMismatch') }, 400);
    const deleted = await deleteMember(db, member.id, clock());
    if (!deleted) return renderMemberNotFound(reply);
    logSecurityEvent(request.events, { event: 'account.member.deleted', userId: member.id, actorId: session.user.id, sessionsEnded: deleted.sessionsEnded, grantsRevoked: deleted.grantsRevoked });
    return reply.redirect(`${MEMBERS_BASE}?deleted=${member.id}`, 303);
  });
};

