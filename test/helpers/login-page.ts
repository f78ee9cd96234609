/** Driving the HTML login form, as a browser does: its hidden token and the cookie it belongs to. */
import type { FastifyInstance } from 'fastify';

/** GET /login and read the form's hidden token and the cookie it belongs to. */
export async function openLoginPage(app: FastifyInstance, query = '', headers: Record<string, string> = {}) {
  const page = await app.inject({ url: `/login${query}`, headers });
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  const returnTo = /name="return_to" value="([^"]*)"/.exec(page.body)?.[1] ?? '';
  const cookie = page.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  return { page, csrf, returnTo, cookie };
}

export function submitLoginForm(app: FastifyInstance, form: Record<string, string>, cookie: string) {
  return app.inject({ method: 'POST', url: '/login', payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } });
}
