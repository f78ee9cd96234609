/**
 * The problems of the region operations (SPEC-API: region pins, forum
 * subscriptions, notification settings), which share the `region.*` codes:
 * one factory per case.
 */
import { ApiProblem } from './plugin/problem.ts';

export const regionProblems = {
  notFound: (regionId: number | string) => new ApiProblem(404, 'region.not-found', `There is no region ${regionId}.`),
  pinNotFound: (regionId: number | string) => new ApiProblem(404, 'region.pin-not-found', `Region ${regionId} has no pin.`),
  mayNotSetPin: () => new ApiProblem(403, 'region.forbidden', 'Only orga and ambassadors of this region may set its pin.'),
  mayNotFollowForum: () => new ApiProblem(403, 'region.forbidden', 'Only members of this region and orga may follow its forum.'),
  notMember: (regionId: number) => new ApiProblem(403, 'region.forbidden', `You are not a member of region ${regionId}.`),
};
