/** The problems the store operations answer with (SPEC-API): one factory per case. */
import { ApiProblem } from '../plugin/problem.ts';

export const storeProblems = {
  notFound: (storeId: number | string) => new ApiProblem(404, 'store.not-found', `There is no store ${storeId}.`),
  postNotFound: (storeId: number, postId: number | string) => new ApiProblem(404, 'store.post-not-found', `Store ${storeId} has no wall post ${postId}.`),
  mayNotViewWall: () => new ApiProblem(403, 'store.forbidden', 'You may not view this store\'s wall.'),
  mayNotRemovePost: () => new ApiProblem(403, 'store.forbidden', 'You may not remove this wall post.'),
  mayNotAppoint: () => new ApiProblem(403, 'store.forbidden', 'Only orga, the store\'s managers and ambassadors of its region may appoint store managers.'),
  userNotFound: (userId: number | string) => new ApiProblem(422, 'store.user-not-found', `There is no user ${userId}.`),
  roleTooLow: () => new ApiProblem(422, 'store.role-too-low', 'The user\'s role is below store manager: they must pass the store manager quiz first.'),
  alreadyManager: () => new ApiProblem(422, 'store.already-manager', 'The user already manages this store.'),
  managerLimit: (limit: number) => new ApiProblem(422, 'store.manager-limit', `A store has at most ${limit} managers.`),
  notYourself: () => new ApiProblem(403, 'store.forbidden', 'You can only sign up yourself for a pickup.'),
  mayNotSignUp: () => new ApiProblem(403, 'store.forbidden', 'Only verified members and managers of the store may sign up for its pickups.'),
  /** `pickupDate` as sent: its millisecond cut (`.0001Z` → `.000Z`) may be a time at which a slot does exist. */
  slotNotFound: (storeId: number, pickupDate: string) =>
    new ApiProblem(404, 'store.pickup-slot-not-found', `Store ${storeId} has no pickup slot at ${pickupDate}.`),
  pickupInPast: () => new ApiProblem(409, 'store.pickup-in-past', 'This pickup has already taken place.'),
  alreadySignedUp: () => new ApiProblem(409, 'store.pickup-already-signed-up', 'You are already signed up for this pickup.'),
  pickupFull: () => new ApiProblem(409, 'store.pickup-full', 'This pickup has no free place left.'),
};
