/**
 * The pages of the logout endpoint (RP-Initiated Logout 1.0 §2, §3): the
 * confirmation form, the logged-out page and the error page. The endpoint
 * (oauth/endpoints/end-session.ts) decides which one; these only render.
 */
import { formToken } from '../../accounts/csrf.ts';
import type { Config } from '../../config.ts';
import type { EndSessionPages } from '../../oauth/end-session-pages.ts';
import { localeOf } from '../language/locale.ts';
import { endSessionMessages } from './end-session.messages.ts';

export function endSessionPages(config: Config): EndSessionPages {
  return {
    invalidRequest(request, reply, error) {
      const t = reply.translator();
      const key = `endSession.error.${error.reason}`;
      // As on the authorization endpoint's pages (web/consent/consent.page.ts): the English message, for the app's developers.
      const reference = localeOf(request) === 'en' ? undefined : endSessionMessages.en[key];
      return reply.render('oauth-error', { heading: t('endSession.errorTitle'), message: t(key), reference, hint: t('endSession.errorHint') }, error.status);
    },

    async confirm(request, reply, view, expired) {
      const error = expired ? reply.translator()('endSession.csrf') : undefined;
      return reply.render('end-session', { ...view, error, csrfToken: await formToken(request, reply, config) }, expired ? 403 : 200);
    },

    loggedOut(_request, reply) {
      return reply.render('end-session-done');
    },
  };
}
