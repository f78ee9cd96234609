/** Roles, ascending (SPEC §4). "Organisation members" are orga. */
export const ROLES = {
  foodsharer: 0,
  foodsaver: 1,
  'store-manager': 2,
  ambassador: 3,
  orga: 4,
} as const;

export type RoleName = keyof typeof ROLES;
export type Role = (typeof ROLES)[RoleName];

export const ROLE_NAMES = Object.keys(ROLES) as RoleName[];

export function roleName(role: number): RoleName {
  return ROLE_NAMES.find((name) => ROLES[name] === role) ?? 'foodsharer';
}

export function isOrga(user: { role: number }): boolean {
  return user.role >= ROLES.orga;
}
