/**
 * The client list of the admin screen (SPEC §5.7): searched by a GET form
 * (`q`: part of a name or client id, any case) and paged, PAGE_SIZE clients
 * a page in client id order, so that paging through a list never skips or
 * repeats a client. A page number that is none is a 400, one past the last
 * page a 404, each with a link back.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { searchClients } from '../../oauth/clients/clients.service.ts';
import { pageSession } from '../page-access.ts';
import { pagerOf } from '../pager.ts';
import { ADMIN_BASE, regionChoices, type AdminPageOptions } from './admin-view.ts';

export const PAGE_SIZE = 25;
const MAX_PAGE = 100_000;
const NOTICES = ['created', 'updated', 'unchanged', 'deleted'] as const;

const ListQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.String({ maxLength: 10 })),
  ...Object.fromEntries(NOTICES.map((n) => [n, Type.Optional(Type.String({ maxLength: 100 }))])),
});

/** The list's address for this search and page (the first page and an empty search left out). */
export function listHref(search: string, page: number): string {
  const params = new URLSearchParams();
  if (search !== '') params.set('q', search);
  if (page > 1) params.set('page', String(page));
  const query = params.toString();
  return query === '' ? ADMIN_BASE : `${ADMIN_BASE}?${query}`;
}

function pageNumber(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return 1;
  return /^[1-9]\d{0,5}$/.test(text) && Number(text) <= MAX_PAGE ? Number(text) : undefined;
}

function noSuchPage(reply: FastifyReply, status: 400 | 404, search: string): Promise<FastifyReply> {
  const t = reply.translator();
  return reply.render('error', { message: t('admin.noSuchPage'), link: { href: listHref(search, 1), text: t('admin.back') } }, status);
}

export const adminListRoute: FastifyPluginAsyncTypebox<AdminPageOptions> = async (app, { db }) => {
  app.get(ADMIN_BASE, { schema: { querystring: ListQuery } }, async (request, reply) => {
    if (!(await pageSession(request, reply, { orgaOnly: true, returnTo: ADMIN_BASE }))) return reply;
    const t = reply.translator();
    const query = request.query as Record<string, string | undefined>;
    const search = (query.q ?? '').trim();
    const page = pageNumber(query.page?.trim());
    if (page === undefined) return noSuchPage(reply, 400, search);
    const { clients, total } = await searchClients(db, search, PAGE_SIZE, (page - 1) * PAGE_SIZE);
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    if (page > pages) return noSuchPage(reply, 404, search);
    const done = NOTICES.find((n) => query[n] !== undefined);
    return reply.render('admin-clients', {
      clients,
      search,
      total,
      page,
      pages,
      first: (page - 1) * PAGE_SIZE + 1,
      last: (page - 1) * PAGE_SIZE + clients.length,
      pager: pagerOf(page, pages, (n) => listHref(search, n)),
      regionNames: new Map((await regionChoices(db)).map((r) => [r.id, r.label])),
      notice: done && t(`admin.${done}`, { name: query[done] ?? '' }),
    });
  });
};
