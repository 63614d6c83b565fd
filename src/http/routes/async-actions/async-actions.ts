import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as asyncActions from '../../../services/async-actions/async-actions.ts';
import { actorOf } from '../../plugins/auth.ts';
import { AsyncActionList, AsyncActionObject, ListAsyncActionsQuery } from '../../../api/async-actions.ts';
import { errorResponses, IdParams } from '../../../api/common.ts';

const tags = ['Async actions'];

export function registerAsyncActionRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.get(
    '/v1/async-actions',
    {
      schema: {
        tags,
        operationId: 'listAsyncActions',
        summary: 'List async actions, newest first; page back in time with end_date',
        querystring: ListAsyncActionsQuery,
        response: { 200: AsyncActionList, ...errorResponses() },
      },
    },
    async (request) => asyncActions.listAsyncActions(deps, actorOf(request), request.query),
  );

  app.get(
    '/v1/async-actions/:asyncActionId',
    {
      schema: {
        tags,
        operationId: 'getAsyncAction',
        summary: 'Get an async action with its result',
        params: IdParams('asyncActionId', 'aa_…'),
        response: { 200: AsyncActionObject, ...errorResponses(404) },
      },
    },
    async (request) => asyncActions.getAsyncAction(deps, actorOf(request), request.params.asyncActionId),
  );
}
