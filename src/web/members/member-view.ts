/** What the member pages share: their options, the path, reading a member id, the 404 and refusal pages. */
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { findMember, type MemberRecord } from '../../accounts/member-search.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { localeOf } from '../language/locale.ts';

export const MEMBERS_BASE = '/admin/users';

export const MemberParams = Type.Object({ id: Type.String({ maxLength: 20 }) });

export interface MembersPageOptions {
  config: Config;
  db: DB;
  clock: Clock;
}

/** The row id a path names (`/admin/users/42`); undefined for anything else, `2147483648` included. */
export function memberIdOf(text: string): number | undefined {
  return /^[1-9]\d{0,9}$/.test(text) && Number(text) <= 2_147_483_647 ? Number(text) : undefined;
}

export function memberPath(id: number): string {
  return `${MEMBERS_BASE}/${id}`;
}

/** The member the path names (not a deleted one), or the 404 page and undefined. */
export async function memberOrNotFound(db: DB, reply: FastifyReply, idText: string): Promise<MemberRecord | undefined> {
  const id = memberIdOf(idText);
  const member = id === undefined ? undefined : await findMember(db, id);
  if (!member) await renderMemberNotFound(reply);
  return member;
}

export function renderMemberNotFound(reply: FastifyReply): Promise<FastifyReply> {
  const t = reply.translator();
  return reply.render('error', { message: t('members.notFound'), link: { href: MEMBERS_BASE, text: t('members.back') } }, 404);
}

/** An error page that leads back to the member's page. */
export function refuse(reply: FastifyReply, member: { id: number }, status: number, messageKey: string): Promise<FastifyReply> {
  const t = reply.translator();
  return reply.render('error', { message: t(messageKey), link: { href: memberPath(member.id), text: t('members.back') } }, status);
}

/** Dates as the audit page shows them: German time, the reader's language. */
export function dateFormatOf(request: FastifyRequest): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat(localeOf(request) === 'en' ? 'en-GB' : 'de-DE', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Europe/Berlin' });
}
