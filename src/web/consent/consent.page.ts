/**
 * The pages of the authorization endpoint (SPEC §5.2): the consent form and
 * the errors told to the user rather than to the client. The endpoint
 * (oauth/endpoints/authorize.ts) decides which one; these only render.
 */
import { formToken } from '../../accounts/csrf.ts';
import type { Config } from '../../config.ts';
import type { AuthorizationPages } from '../../oauth/authorization-pages.ts';

export function consentPages(config: Config): AuthorizationPages {
  return {
    invalidRequest(_request, reply, error) {
      const t = reply.translator();
      return reply.render('oauth-error', { heading: t('oauth.error.title'), message: t(`oauth.error.${error.reason}`), hint: t('oauth.error.hint') }, error.status);
    },

    notInRequiredRegions(_request, reply, { clientName, back }) {
      const t = reply.translator();
      return reply.render('oauth-error', {
        heading: t('oauth.regions.title'), message: t('oauth.regions.message'), hint: t('oauth.regions.hint'),
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
