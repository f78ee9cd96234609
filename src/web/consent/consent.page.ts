/**
 * The pages of the authorization endpoint (SPEC §5.2): the consent form and
 * the errors told to the user rather than to the client. The endpoint
 * (oauth/endpoints/authorize.ts) decides which one; these only render.
 */
import type { FastifyRequest } from 'fastify';
import { formToken } from '../../accounts/csrf.ts';
import type { Config } from '../../config.ts';
import type { AuthorizationPages } from '../../oauth/authorization-pages.ts';
import { localeOf } from '../language/locale.ts';
import { consentMessages } from './consent.messages.ts';

/**
 * The specification's own English message for the error ("Invalid
 * redirect_uri"), shown on pages in another language as a marked English
 * reference for the app's developers: the sentence above it is the member's.
 */
function reference(request: FastifyRequest, key: string): string | undefined {
  return localeOf(request) === 'en' ? undefined : consentMessages.en[key];
}

export function consentPages(config: Config): AuthorizationPages {
  return {
    invalidRequest(request, reply, error) {
      const t = reply.translator();
      const key = `oauth.error.${error.reason}`;
      return reply.render('oauth-error', { heading: t('oauth.error.title'), message: t(key), reference: reference(request, key), hint: t('oauth.error.hint') }, error.status);
    },

    notInRequiredRegions(request, reply, { clientName, back }) {
      const t = reply.translator();
      return reply.render('oauth-error', {
        heading: t('oauth.regions.title'), message: t('oauth.regions.message'), reference: reference(request, 'oauth.regions.message'), hint: t('oauth.regions.hint'),
        link: { href: back, text: t('oauth.backToClient', { name: clientName }) },
      }, 403);
    },

    consentExpired(_request, reply) {
      const t = reply.translator();
      return reply.render('oauth-error', { heading: t('oauth.consent.title'), message: t('oauth.consent.csrf') }, 403);
    },

    async consent(request, reply, view) {
      return reply.render('consent', { ...view, csrfToken: await formToken(request, reply, config) });
    },
  };
}
