/**
 * The baskets suites' people: a creator (a foodsharer) and another member,
 * both with long sessions (the tests move the clock by days), and uploads to
 * put in a basket: the creator's picture and PDF, the other member's picture.
 */
import type { AppFixture, LoggedIn } from '../helpers/fixture.ts';

/** The seed's basket object, field for field. */
export const BASKET_KEYS = ['id', 'description', 'pictures', 'contactTypes', 'mobile', 'telephone', 'lat', 'lon', 'lifeTimeInDays',
  'weightInGrams', 'status', 'location', 'creator', 'created', 'updated', 'until', 'requestCount'].sort();

export const VALID_BASKET = { description: 'Brot und Brötchen vom Vortag', contactTypes: [1, 2], mobile: '+49 170/123-45', lat: 52.5, lon: 13.4, lifeTimeInDays: 3, weightInGrams: 1500 };

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const PDF = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n%%EOF\n', 'latin1').toString('base64');

export interface BasketPeople {
  creator: LoggedIn;
  creatorId: number;
  other: LoggedIn;
  otherId: number;
  ownPicture: string;
  othersPicture: string;
  ownDocument: string;
}

export async function makeBasketPeople(t: AppFixture): Promise<BasketPeople> {
  // remember me: the tests move the clock by days
  const creator = await t.as('foodsharer', { firstName: 'Clara', rememberMe: true });
  const other = await t.as('foodsaver', { rememberMe: true });
  const upload = async (who: LoggedIn, filename: string, body: string): Promise<string> =>
    (await t.call('POST', '/api/uploads', who, { filename, body })).json().url;
  return {
    creator, creatorId: creator.user.id, other, otherId: other.user.id,
    ownPicture: await upload(creator, 'a.png', PNG),
    othersPicture: await upload(other, 'b.png', PNG),
    ownDocument: await upload(creator, 'menu.pdf', PDF),
  };
}

/** A basket of `creator`'s: the valid one with `overrides`. */
export async function createBasketAs(t: AppFixture, creator: LoggedIn, overrides: Record<string, unknown> = {}): Promise<number> {
  const response = await t.call('POST', '/api/baskets', creator, { ...VALID_BASKET, ...overrides });
  if (response.statusCode !== 201) throw new Error(response.body);
  return response.json().id;
}
