/**
 * The device verification pages (RFC 8628 §3.3): the code entry form, the
 * confirmation ("is this the code on your device?"), and the answers. The
 * endpoint (oauth/endpoints/device-verification.ts) decides which one; these
 * only render.
 */
import { formToken } from '../../accounts/csrf.ts';
import type { Config } from '../../config.ts';
import { DEVICE_VERIFICATION_PATH } from '../../oauth/device-authorization/device-authorization.ts';
import type { DevicePages, UserCodeProblem } from '../../oauth/device-pages.ts';

const PROBLEM_MESSAGES: Record<UserCodeProblem, string> = {
  'malformed': 'device.error.malformed',
  'unknown': 'device.error.unknown',
  'limited': 'device.error.limited',
  'expired-form': 'device.error.expiredForm',
};

export function devicePages(config: Config): DevicePages {
  return {
    async entry(request, reply, view, status) {
      const t = reply.translator();
      const error = view.problem && t(PROBLEM_MESSAGES[view.problem], { seconds: view.retryAfterSeconds ?? 0 });
      return reply.render('device-entry', { userCode: view.userCode, error, csrfToken: await formToken(request, reply, config) }, status);
    },

    async confirm(request, reply, view) {
      return reply.render('device-confirm', { ...view, csrfToken: await formToken(request, reply, config) });
    },

    expired(_request, reply) {
      const t = reply.translator();
      return reply.render('oauth-error', { heading: t('device.expired.title'), message: t('device.expired.message'), hint: t('device.expired.hint') }, 400);
    },

    otherBrowser(_request, reply) {
      const t = reply.translator();
      return reply.render('oauth-error', {
        heading: t('device.otherBrowser.title'), message: t('device.otherBrowser.message'), hint: t('device.otherBrowser.hint'),
        link: { href: DEVICE_VERIFICATION_PATH, text: t('device.title') },
      }, 403);
    },

    notInRequiredRegions(_request, reply, { message }) {
      const t = reply.translator();
      return reply.render('oauth-error', { heading: t('oauth.regions.title'), message, hint: t('oauth.regions.hint') }, 403);
    },

    done(_request, reply, { approved, clientName }) {
      return reply.render('device-done', { approved, clientName });
    },
  };
}
