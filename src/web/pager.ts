/**
 * A numbered pager (the GOV.UK pagination pattern): previous and next, the
 * first and last page, the pages around the current one, a gap where pages
 * are left out. Every page is a link, the current one marked
 * `aria-current="page"`, so the keyboard reaches each in order.
 */

export type PagerItem = { readonly page: number; readonly href: string; readonly current: boolean } | { readonly gap: true };

export interface Pager {
  readonly previous: string | undefined;
  readonly next: string | undefined;
  readonly items: readonly PagerItem[];
}

/** Pages either side of the current one that are always shown. */
const AROUND = 2;

/** The pager of page `current` of `pages` (none when there is a single page); `href(n)` links to page n. */
export function pagerOf(current: number, pages: number, href: (page: number) => string): Pager | undefined {
  if (pages <= 1) return undefined;
  const shown = [...new Set([1, pages, ...Array.from({ length: 2 * AROUND + 1 }, (_, i) => current - AROUND + i)])]
    .filter((n) => n >= 1 && n <= pages)
    .sort((a, b) => a - b);
  const items: PagerItem[] = [];
  for (const [index, page] of shown.entries()) {
    const before = shown[index - 1];
    // A gap of one page shows that page rather than an ellipsis standing for it.
    if (before !== undefined && page - before === 2) items.push({ page: page - 1, href: href(page - 1), current: false });
    else if (before !== undefined && page - before > 2) items.push({ gap: true });
    items.push({ page, href: href(page), current: page === current });
  }
  return {
    previous: current > 1 ? href(current - 1) : undefined,
    next: current < pages ? href(current + 1) : undefined,
    items,
  };
}
