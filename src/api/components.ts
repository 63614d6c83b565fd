import type { TSchema } from 'typebox';
import * as apiKeys from './api-keys.ts';
import * as asyncActions from './async-actions.ts';
import * as bin from './bin.ts';
import * as branding from './branding.ts';
import * as bulk from './bulk.ts';
import * as campaignTemplates from './campaign-templates.ts';
import * as campaigns from './campaigns.ts';
import * as categories from './categories.ts';
import * as common from './common.ts';
import * as consents from './consents.ts';
import * as csvImports from './csv-imports.ts';
import * as customEvents from './custom-events.ts';
import * as customerRedeemables from './customer-redeemables.ts';
import * as customers from './customers.ts';
import * as discounts from './discounts.ts';
import * as earningRules from './earning-rules.ts';
import * as exports_ from './exports.ts';
import * as locations from './locations.ts';
import * as loyaltyTiers from './loyalty-tiers.ts';
import * as loyalty from './loyalty.ts';
import * as metadataSchemas from './metadata-schemas.ts';
import * as oauth from './oauth.ts';
import * as orders from './orders.ts';
import * as productCollections from './product-collections.ts';
import * as products from './products.ts';
import * as projects from './projects.ts';
import * as promotions from './promotions.ts';
import * as publications from './publications.ts';
import * as redemptions from './redemptions.ts';
import * as referralTiers from './referral-tiers.ts';
import * as referrals from './referrals.ts';
import * as reports from './reports.ts';
import * as rewards from './rewards.ts';
import * as segments from './segments.ts';
import * as users from './users.ts';
import * as validationRules from './validation-rules.ts';
import * as vouchers from './vouchers.ts';
import * as webhooks from './webhooks.ts';

// The contract's named schemas. Every request body, response and shared object a module of src/api
// exports is declared there once, as a constant, and gets its component name here: its export name, with
// a trailing `Object` dropped (`CustomerObject` → `Customer`). The OpenAPI document declares each once
// under components/schemas and refers to it with `$ref` wherever it occurs (src/http/plugins/openapi.ts).
//
// Why the name is not written into the schema as `$id`: the request validators compile each route's
// schema whole, and Ajv refuses a schema that embeds one `$id` twice (an order's `customer` and
// `referrer`); and Type.Optional copies the schema it wraps, so a name cannot travel by identity
// either. The document generator therefore recognises a named schema by its content.

const MODULES = [
  apiKeys, asyncActions, bin, branding, bulk, campaignTemplates, campaigns, categories, common, consents, csvImports,
  customEvents, customerRedeemables, customers, discounts, earningRules, exports_, locations, loyaltyTiers, loyalty,
  metadataSchemas, oauth, orders, productCollections, products, projects, promotions, publications, redemptions,
  referralTiers, referrals, reports, rewards, segments, users, validationRules, vouchers, webhooks,
];

/** Names that read better than the export's own. */
const RENAMED: Record<string, string> = { ErrorBody: 'Error' };

/** Path parameters and query strings become OpenAPI parameters, not components. */
const NOT_A_COMPONENT = /(Params|Query)$/;

function isObjectSchema(value: unknown): value is TSchema {
  if (typeof value !== 'object' || value === null) return false;
  const node = value as Record<string, unknown>;
  return node.type === 'object' || node.type === 'array' || Array.isArray(node.anyOf) || Array.isArray(node.oneOf);
}

function collect(): Map<string, TSchema> {
  const named = new Map<string, TSchema>();
  const text = new Map<string, string>();
  for (const module of MODULES) {
    for (const [exportName, value] of Object.entries(module)) {
      if (NOT_A_COMPONENT.test(exportName) || !isObjectSchema(value)) continue;
      const name = RENAMED[exportName] ?? exportName.replace(/(.)Object$/, '$1');
      const json = JSON.stringify(value);
      const earlier = text.get(name);
      if (earlier !== undefined && earlier !== json) throw new Error(`two contract schemas are both named ${name}: rename one export`);
      named.set(name, value);
      text.set(name, json);
    }
  }
  return named;
}

/** Component name → schema, for every named schema of the contract. */
export const NAMED_SCHEMAS: ReadonlyMap<string, TSchema> = collect();
