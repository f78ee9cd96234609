/**
 * What a composer says, and the two parts it becomes: plain text and HTML.
 * No images, no remote content, no redirecting links: a message carries the
 * link it is about as it is, and nothing that tells anyone it was opened.
 */
import type { MailLocale } from './mail.tables.ts';

export interface MailContent {
  readonly subject: string;
  /** Paragraphs before the action. */
  readonly intro: readonly string[];
  /** The one link the message is about, shown as a button in HTML and in full in both parts. */
  readonly action?: { readonly label: string; readonly href: string };
  /** Paragraphs after the action (how long the link lasts, what to do if you did not ask). */
  readonly outro?: readonly string[];
}

export interface RenderedMail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

const MAIL_TIMES: Readonly<Record<MailLocale, Intl.DateTimeFormat>> = Object.fromEntries((['de', 'en'] as const).map((locale) => [locale,
  new Intl.DateTimeFormat(locale === 'de' ? 'de-DE' : 'en-GB', {
    day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short', timeZone: 'Europe/Berlin',
  })])) as Record<MailLocale, Intl.DateTimeFormat>;

/**
 * When something happened, as a message says it: the platform's time with its zone, which a reader
 * elsewhere can convert ("29. November 2026 um 05:54 MEZ", "29 November 2026 at 05:54 CET").
 */
export function mailTime(at: Date, locale: MailLocale): string {
  return MAIL_TIMES[locale].format(at);
}

export function renderMail(locale: MailLocale, content: MailContent): RenderedMail {
  return { subject: content.subject, text: textOf(content), html: htmlOf(locale, content) };
}

function textOf(content: MailContent): string {
  const blocks = [...content.intro];
  if (content.action) blocks.push(`${content.action.label}:\n${content.action.href}`);
  blocks.push(...(content.outro ?? []));
  return `${blocks.join('\n\n')}\n`;
}

function htmlOf(locale: MailLocale, content: MailContent): string {
  const paragraphs = (texts: readonly string[] | undefined) => (texts ?? []).map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
  const action = content.action
    ? `<p><a href="${escapeHtml(content.action.href)}" style="display:inline-block;padding:10px 16px;background:#533a20;color:#ffffff;text-decoration:none;border-radius:4px">${escapeHtml(content.action.label)}</a></p>
<p style="font-size:13px;color:#555555">${escapeHtml(content.action.href)}</p>`
    : '';
  return `<!doctype html>
<html lang="${locale}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(content.subject)}</title></head>
<body style="font-family:sans-serif;font-size:16px;line-height:1.5;color:#222222">
${paragraphs(content.intro)}
${action}
${paragraphs(content.outro)}
</body>
</html>
`;
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}
