/** Who may do what with a basket (SPEC-API). */
import type { BasketRow } from './baskets.repository.ts';

export const BASKET_ACTIVE = 1;
export const BASKET_DELETED = 5;

/** Active and not yet expired: the only baskets that can be edited, requested or withdrawn from. */
export function isAvailable(basket: Pick<BasketRow, 'status' | 'until'>, now: Date): boolean {
  return basket.status === BASKET_ACTIVE && basket.until.getTime() > now.getTime();
}

/** Deleted baskets are gone for everyone. */
export function isVisible(basket: Pick<BasketRow, 'status'>): boolean {
  return basket.status !== BASKET_DELETED;
}

export function mayEditBasket(user: { id: number }, basket: Pick<BasketRow, 'creator_id'>): boolean {
  return user.id === basket.creator_id;
}
