import type { RouteContext, TypedApp } from '../../route-context.ts';
import { getLocation, listLocations } from '../../../services/locations/locations.ts';
import { actorOf } from '../../plugins/auth.ts';
import { errorResponses, IdParams } from '../../../api/common.ts';
import { ListLocationsQuery, LocationList, LocationObject } from '../../../api/locations.ts';

const tags = ['Locations'];

export function registerLocationRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.get(
    '/v1/locations',
    {
      schema: {
        tags,
        operationId: 'listLocations',
        summary: 'List locations: always empty in a self-hosted project, which has no way to create one (the query is still checked)',
        querystring: ListLocationsQuery,
        response: { 200: LocationList, ...errorResponses() },
      },
    },
    async (request) => listLocations(deps, actorOf(request), request.query),
  );

  app.get(
    '/v1/locations/:locationId',
    {
      schema: {
        tags,
        operationId: 'getLocation',
        summary: 'Get a location: every id is unknown (404) in a self-hosted project',
        params: IdParams('locationId', 'Location id (loc_…)'),
        response: { 200: LocationObject, ...errorResponses(404) },
      },
    },
    async (request) => getLocation(deps, actorOf(request), request.params.locationId),
  );
}
