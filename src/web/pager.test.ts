import { describe, expect, it } from 'vitest';
import { pagerOf, type PagerItem } from './pager.ts';

/** "1 [3] 4 … 9": the pages shown, the current in brackets. */
function shown(items: readonly PagerItem[] | undefined): string {
  return (items ?? []).map((item) => ('gap' in item ? '…' : item.current ? `[${item.page}]` : String(item.page))).join(' ');
}

describe('the pager', () => {
  const href = (n: number) => `/list?page=${n}`;

  it('is absent for a single page', () => {
    expect(pagerOf(1, 1, href)).toBeUndefined();
    expect(pagerOf(1, 0, href)).toBeUndefined();
  });

  it('links every page of a short list, the current one marked, with previous and next', () => {
    const pager = pagerOf(2, 3, href);
    expect(shown(pager?.items)).toBe('1 [2] 3');
    expect(pager?.previous).toBe('/list?page=1');
    expect(pager?.next).toBe('/list?page=3');
    expect(pager?.items[0]).toEqual({ page: 1, href: '/list?page=1', current: false });
    expect(pagerOf(1, 3, href)?.previous).toBeUndefined();
    expect(pagerOf(3, 3, href)?.next).toBeUndefined();
  });

  it('leaves out the pages far from the current one, never a single page', () => {
    expect(shown(pagerOf(1, 20, href)?.items)).toBe('[1] 2 3 … 20');
    expect(shown(pagerOf(10, 20, href)?.items)).toBe('1 … 8 9 [10] 11 12 … 20');
    expect(shown(pagerOf(5, 20, href)?.items)).toBe('1 2 3 4 [5] 6 7 … 20');
    expect(shown(pagerOf(20, 20, href)?.items)).toBe('1 … 18 19 [20]');
    expect(shown(pagerOf(4, 7, href)?.items)).toBe('1 2 3 [4] 5 6 7');
  });
});
