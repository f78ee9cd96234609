/**
 * What a refused form shows (WCAG 2.1 3.3.1 Error Identification, 3.3.3
 * Error Suggestion; the GOV.UK error summary pattern): every field in error
 * carries `aria-invalid="true"` and names its message, shown beside it, in
 * `aria-describedby`; the summary at the top (views/form-error-summary.eta),
 * focused on load, links to each field. The marks are keyed by the field's
 * element id, so a field a template adds later is marked by the same two
 * calls as every other one as soon as a message carries its id.
 */

export interface FieldProblem {
  /** The id of the field's element: the summary links to `#id`. */
  readonly id: string;
  /** The field's label, when it has one, to name the field in the summary. */
  readonly label: string | undefined;
  readonly message: string;
}

export interface FieldMarkOptions {
  /** The field has a help text `<id>-help`, read before the message. */
  readonly help?: boolean;
  /**
   * A group (`fieldset`) that is not focusable by itself: in error it takes
   * `tabindex="-1"` so that the summary's link moves the focus to it.
   */
  readonly group?: boolean;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\'': '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

export class FieldMarks {
  /** In the order of `order`, then the remaining ones in the order given. */
  readonly problems: readonly FieldProblem[];
  readonly #messages: ReadonlyMap<string, string>;

  constructor(messages: Readonly<Record<string, string | undefined>> = {}, label: (id: string) => string | undefined = () => undefined, order: readonly string[] = []) {
    const given = Object.entries(messages).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '');
    this.#messages = new Map(given);
    const rank = (id: string) => (order.includes(id) ? order.indexOf(id) : order.length);
    this.problems = given
      .map(([id, message], index) => ({ id, message, index }))
      .sort((a, b) => rank(a.id) - rank(b.id) || a.index - b.index)
      .map(({ id, message }) => ({ id, label: label(id), message }));
  }

  isInvalid(id: string): boolean {
    return this.#messages.has(id);
  }

  /** The field's attributes (raw HTML, escaped here): what describes it and, in error, `aria-invalid`. */
  attributes(id: string, options: FieldMarkOptions = {}): string {
    const invalid = this.isInvalid(id);
    const describedBy = [options.help ? `${id}-help` : '', invalid ? `${id}-error` : ''].filter((part) => part !== '').join(' ');
    return [
      describedBy === '' ? '' : ` aria-describedby="${escapeHtml(describedBy)}"`,
      invalid ? ' aria-invalid="true"' : '',
      invalid && options.group ? ' tabindex="-1"' : '',
    ].join('');
  }

  /** The message shown beside the field (raw HTML, escaped here); empty when the field is fine. */
  message(id: string): string {
    const message = this.#messages.get(id);
    return message === undefined ? '' : `<p class="field-error" id="${escapeHtml(id)}-error">${escapeHtml(message)}</p>`;
  }
}

/** A label for each field from the page's strings (`<prefix><id>`); none where the key is missing. */
export function labelsFrom(t: (key: string) => string, prefix: string): (id: string) => string | undefined {
  return (id) => {
    const key = `${prefix}${id}`;
    const text = t(key);
    return text === key ? undefined : text;
  };
}
