import Type, { type Static } from 'typebox';
import { ClientCustomerBody } from './customers.ts';
import { Metadata } from './common.ts';
import { UpdateProductBody } from './products.ts';

// Bulk and metadata updates that run as async actions (platform reference 3.1, 4.1, 8).

const SourceId = Type.String({ minLength: 1, maxLength: 255, description: 'The merchant’s identifier; an unknown one is created (upsert)' });
const MAX_ITEMS = 100_000;

export const CustomersBulkBody = Type.Array(Type.Object({ ...ClientCustomerBody.properties, source_id: SourceId }), {
  minItems: 1,
  maxItems: MAX_ITEMS,
  description: 'Customers to create or update, each named by source_id; members not sent stay as they are',
});
export type CustomersBulkInput = Static<typeof CustomersBulkBody>;

export const ProductsBulkBody = Type.Array(Type.Object({ ...UpdateProductBody.properties, source_id: SourceId }), {
  minItems: 1,
  maxItems: MAX_ITEMS,
  description: 'Products to create or update, each named by source_id; members not sent stay as they are',
});
export type ProductsBulkInput = Static<typeof ProductsBulkBody>;

export const MetadataBulkBody = Type.Object({
  source_ids: Type.Array(SourceId, { minItems: 1, maxItems: MAX_ITEMS }),
  metadata: Metadata,
});
export type MetadataBulkInput = Static<typeof MetadataBulkBody>;

export const AsyncActionCreated = Type.Object({ async_action_id: Type.String({ description: 'aa_…; follow it with GET /v1/async-actions/{id}' }) });
