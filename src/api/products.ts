import Type, { type Static } from 'typebox';
import { Limit, Metadata, Nullable } from './common.ts';
import { FreeFormObject } from './free-form.ts';

// Products and SKUs (platform reference 4.1–4.3). Request members the vendor does not define are ignored,
// as the vendor does (the SDK's update calls send `source_id` in the body; the path names the resource).

const sourceId = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });
const dateBound = (description: string) => Type.String({ format: 'date-or-date-time', description });
const Price = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'Unit price in minor units (cents): 10000 is 100.00',
});
const ImageUrl = Type.String({
  format: 'uri',
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
  maxLength: 2048,
  description: 'Absolute http(s) URL of the image',
});
export const ProductAttributes = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  maxItems: 100,
  description: 'Names of the attributes whose values the SKUs give, e.g. ["color","size"]',
});
const SkuAttributes = FreeFormObject({
  description: "Values keyed by the parent product's attribute names, e.g. {\"color\":\"red\"}",
});
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code of the SKU price' });

const ProductFields = {
  name: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  price: Type.Optional(Nullable(Price)),
  attributes: Type.Optional(Nullable(ProductAttributes)),
  metadata: Type.Optional(Nullable(Metadata)),
  image_url: Type.Optional(Nullable(ImageUrl)),
};

export const CreateProductBody = Type.Object({
  id: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'Id (prod_…) of an existing product to update instead' })),
  ),
  source_id: Type.Optional(
    Nullable(sourceId('Unique among live products; an existing one is updated instead (upsert)')),
  ),
  ...ProductFields,
});
export type CreateProductInput = Static<typeof CreateProductBody>;

export const UpdateProductBody = Type.Object(ProductFields, {
  description: 'Only the members sent change; `id` and `source_id` in the body are ignored',
});
export type UpdateProductInput = Static<typeof UpdateProductBody>;

const SkuFields = {
  sku: Type.Optional(Nullable(Type.String({ maxLength: 1000, description: 'SKU name' }))),
  price: Type.Optional(Nullable(Price)),
  currency: Type.Optional(Nullable(Currency)),
  attributes: Type.Optional(Nullable(SkuAttributes)),
  image_url: Type.Optional(Nullable(ImageUrl)),
  metadata: Type.Optional(Nullable(Metadata)),
};

export const CreateSkuBody = Type.Object({
  id: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'Id (sku_…) of an existing SKU of this product to update instead' })),
  ),
  source_id: Type.Optional(
    Nullable(sourceId('Unique among live SKUs; an existing SKU of this product is updated instead (upsert)')),
  ),
  ...SkuFields,
});
export type CreateSkuInput = Static<typeof CreateSkuBody>;

export const UpdateSkuBody = Type.Object(SkuFields, {
  description: 'Only the members sent change; `id` and `source_id` in the body are ignored',
});
export type UpdateSkuInput = Static<typeof UpdateSkuBody>;

export const ProductParams = Type.Object({
  productId: Type.String({ minLength: 1, description: 'Product id (prod_…) or source_id' }),
});
export const ProductSkuParams = Type.Object({
  productId: Type.String({ minLength: 1, description: 'Product id (prod_…) or source_id' }),
  skuId: Type.String({ minLength: 1, description: 'SKU id (sku_…) or source_id' }),
});
export const SkuParams = Type.Object({
  skuId: Type.String({ minLength: 1, description: 'SKU id (sku_…) or source_id' }),
});

export const CATALOG_ORDERS = [
  'created_at',
  '-created_at',
  'updated_at',
  '-updated_at',
  'type',
  '-type',
  'code',
  '-code',
  'campaign',
  '-campaign',
  'category',
  '-category',
] as const;

export const CatalogListQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 1 })),
  order: Type.Optional(
    Type.Enum([...CATALOG_ORDERS], {
      description:
        'A leading dash sorts descending. `updated_at` sorts by last change (creation when never updated). ' +
        'The vendor also lists type, code, campaign and category, which products do not have: those sort by creation.',
    }),
  ),
  start_date: Type.Optional(dateBound('Only items created at or after this time (ISO 8601 date or date-time)')),
  end_date: Type.Optional(
    dateBound('Only items created at or before this time (ISO 8601); a bare date means the end of that day (UTC)'),
  ),
});
export type CatalogListInput = Static<typeof CatalogListQuery>;

export const ProductListQuery = Type.Object({
  ...CatalogListQuery.properties,
  // Not in the vendor's list query; the console finds products by name with it.
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only products whose name contains this text, ignoring the case of A–Z' })),
});
export type ProductListInput = Static<typeof ProductListQuery>;

export const ForceQuery = Type.Object({
  force: Type.Optional(
    Type.Boolean({ description: 'true: delete permanently; false or absent: move to the bin (its source_id is free at once)' }),
  ),
});

export const SkuObject = Type.Object({
  id: Type.String({ description: 'sku_…' }),
  source_id: Nullable(Type.String()),
  product_id: Type.String(),
  sku: Nullable(Type.String()),
  price: Nullable(Type.Integer()),
  currency: Nullable(Type.String()),
  attributes: Type.Record(Type.String(), Type.Unknown()),
  image_url: Nullable(Type.String()),
  metadata: Metadata,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
  object: Type.Literal('sku'),
});

const ProductCore = {
  id: Type.String({ description: 'prod_…' }),
  source_id: Nullable(Type.String()),
  name: Nullable(Type.String()),
  price: Nullable(Type.Integer()),
  attributes: Type.Array(Type.String()),
  metadata: Metadata,
  image_url: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
  object: Type.Literal('product'),
};

export const ProductObject = Type.Object(ProductCore);

export const EmbeddedSkuList = Type.Object(
  {
    object: Type.Literal('list'),
    data_ref: Type.Literal('data'),
    data: Type.Array(SkuObject),
    total: Type.Integer({ description: 'Number of live SKUs of the product' }),
  },
  { description: 'The first 100 live SKUs, oldest first; `total` counts them all' },
);

export const ProductWithSkus = Type.Object({ ...ProductCore, skus: EmbeddedSkuList });

export const ProductList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('products'),
  products: Type.Array(ProductWithSkus),
  total: Type.Integer({ description: 'Number of matching live products' }),
});

export const SkuList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('skus'),
  skus: Type.Array(SkuObject),
  total: Type.Integer({ description: 'Number of matching live SKUs of the product' }),
});
