import type { ListLocationsInput, LocationListOut } from '../../api/locations.ts';
import { errors } from '../../domain/errors.ts';
import { FilterError, parseFilter, type FieldCatalog } from '../../domain/filters/filter.ts';
import type { Actor, Deps } from '../context.ts';

// Locations (vendor list-locations, get-location): areas drawn on a map that the vendor's validation rules
// can test a customer's position against. The vendor creates them in its dashboard only: its API, like
// Punchcard's management API, has no operation that makes one, and Punchcard's rule engine refuses
// location rules. A self-hosted project therefore never holds a location: the list is empty and every
// location id is unknown (404). The query is still checked as the vendor documents it, so a client's
// mistake is a 400 here as it would be there.

/** The fields the vendor's list filters on (ParameterFiltersListLocations); nothing is stored to filter. */
const locationFilterFields: FieldCatalog = (field) => {
  if (field === 'name') return { kind: 'text', column: 'name' };
  if (field === 'created_at' || field === 'updated_at') return { kind: 'instant', column: field };
  return null;
};

export function listLocations(_deps: Deps, _actor: Actor, query: ListLocationsInput): LocationListOut {
  try {
    if (query.filters) parseFilter(query.filters, locationFilterFields, { path: '.filters', allowRelativeTime: true });
  } catch (error) {
    if (error instanceof FilterError) throw errors.invalidQuery(error.details);
    throw error;
  }
  return { object: 'list', data_ref: 'data', data: [], total: 0, has_more: false };
}

export function getLocation(_deps: Deps, _actor: Actor, locationId: string): never {
  throw errors.notFound('location', locationId);
}
