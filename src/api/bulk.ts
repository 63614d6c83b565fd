import Type, { type Static } from 'typebox';
import { ClientCustomerBody } from './customers.ts';
import { Metadata } from './common.ts';
import { CreateOrderBody } from './orders.ts';
import { UpdateProductBody } from './products.ts';

// Bulk and metadata updates that run as async actions (platform reference 3.1, 4.1, 8; vouchers: vendor
// VouchersUpdateInBulkRequestBody, VouchersMetadataUpdateInBulkRequestBody).

const SourceId = Type.String({ minLength: 1, maxLength: 255, description: 'The merchant’s identifier; an unknown one is created (upsert)' });
const MAX_ITEMS = 100_000;

// The vendor's schemas require nothing here: an empty list (or no body, src/http/plugins/request-leniency.ts)
// is an update of nothing, answered like any other with an async action that finishes at once.

export const CustomersBulkBody = Type.Array(Type.Object({ ...ClientCustomerBody.properties, source_id: SourceId }), {
  maxItems: MAX_ITEMS,
  description: 'Customers to create or update, each named by source_id; members not sent stay as they are',
});
export type CustomersBulkInput = Static<typeof CustomersBulkBody>;

export const ProductsBulkBody = Type.Array(Type.Object({ ...UpdateProductBody.properties, source_id: SourceId }), {
  maxItems: MAX_ITEMS,
  description: 'Products to create or update, each named by source_id; members not sent stay as they are',
});
export type ProductsBulkInput = Static<typeof ProductsBulkBody>;

const ProductId = Type.String({ minLength: 1, maxLength: 255, description: 'An existing product id (prod_…); an unknown one is reported in the result’s errors' });

export const MetadataBulkBody = Type.Object({
  source_ids: Type.Optional(Type.Array(SourceId, { maxItems: MAX_ITEMS })),
  metadata: Type.Optional(Metadata),
});
export type MetadataBulkInput = Static<typeof MetadataBulkBody>;

/** Products may also be named by id, as the vendor's newer client sends them; ids never create a product. */
export const ProductsMetadataBulkBody = Type.Object({
  source_ids: Type.Optional(Type.Array(SourceId, { maxItems: MAX_ITEMS })),
  product_ids: Type.Optional(Type.Array(ProductId, { maxItems: MAX_ITEMS })),
  metadata: Type.Optional(Metadata),
});
export type ProductsMetadataBulkInput = Static<typeof ProductsMetadataBulkBody>;

const VoucherCode = Type.String({ minLength: 1, maxLength: 200, description: 'An existing voucher code (vouchers are never created here)' });

export const VouchersBulkBody = Type.Array(Type.Object({ code: VoucherCode, metadata: Metadata }), {
  maxItems: MAX_ITEMS,
  description: "Vouchers by code, each with the metadata members to merge into its own; an unknown code is reported in the result's errors",
});
export type VouchersBulkInput = Static<typeof VouchersBulkBody>;

export const VouchersMetadataBulkBody = Type.Object({
  codes: Type.Optional(Type.Array(VoucherCode, { maxItems: MAX_ITEMS })),
  metadata: Type.Optional(Metadata),
});
export type VouchersMetadataBulkInput = Static<typeof VouchersMetadataBulkBody>;

/** The vendor imports at most 2000 orders per request. */
export const MAX_IMPORTED_ORDERS = 2000;

export const OrdersImportBody = Type.Array(CreateOrderBody, {
  minItems: 1,
  maxItems: MAX_IMPORTED_ORDERS,
  description: `Historical orders to create (or update, by id or source_id), at most ${MAX_IMPORTED_ORDERS}`,
});
export type OrdersImportInput = Static<typeof OrdersImportBody>;

export const AsyncActionCreated = Type.Object({ async_action_id: Type.String({ description: 'aa_…; follow it with GET /v1/async-actions/{id}' }) });
