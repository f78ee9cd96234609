/** The problems `/api/baskets` answers with (SPEC-API): one factory per case. */
import { ApiProblem } from '../plugin/problem.ts';

export const basketProblems = {
  notFound: () => new ApiProblem(404, 'basket.not-found', 'There is no such basket, or it is no longer available.'),
  notCreator: () => new ApiProblem(403, 'basket.forbidden', 'Only the creator may edit this basket.'),
  ownBasket: () => new ApiProblem(409, 'basket.own-basket', 'You cannot request your own basket.'),
  alreadyRequested: (status: number | undefined) =>
    new ApiProblem(409, 'basket.already-requested', `You already requested this basket (request status ${status ?? '?'}).`),
  noOpenRequest: () => new ApiProblem(404, 'basket.no-open-request', 'You have no open request for this basket.'),
};
