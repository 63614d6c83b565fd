import Type, { type Static } from 'typebox';
import { DateTime, Limit, Metadata, Nullable } from './common.ts';
import { FreeFormObject } from './free-form.ts';

// Product collections (vendor OpenAPI ProductCollectionsCreateRequestBody, ProductCollectionsItem,
// ProductCollectionsProductsList). The AUTO_UPDATE filter is checked by src/domain/filters against the
// product fields.

export const CollectionItem = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 255, description: 'Product or SKU id (a source_id is accepted too)' }),
  object: Type.Enum(['product', 'sku']),
  product_id: Type.Optional(Type.String({ description: 'For SKUs: the parent product (answered; ignored on input)' })),
});

const Filter = FreeFormObject({
  description:
    'Product filter: { junction: "and" | "or", <field>: { conditions: { "$operator": [values] } } }. Fields: id, source_id, name, price, image_url, created_at, updated_at, metadata.<key>',
});

export const CreateProductCollectionBody = Type.Object({
  type: Type.Optional(Type.Enum(['STATIC', 'AUTO_UPDATE'], { description: 'Default STATIC' })),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  products: Type.Optional(Type.Array(CollectionItem, { maxItems: 1000, description: 'STATIC: the products and SKUs in the collection' })),
  filter: Type.Optional(Filter),
});
export type CreateProductCollectionInput = Static<typeof CreateProductCollectionBody>;

export const ProductCollectionObject = Type.Object({
  id: Type.String({ description: 'pc_…' }),
  name: Type.String(),
  type: Type.Enum(['STATIC', 'AUTO_UPDATE']),
  filter: Type.Optional(Filter),
  products: Type.Optional(Type.Array(CollectionItem)),
  created_at: DateTime,
  object: Type.Literal('products_collection'),
});
export type ProductCollectionObjectOut = Static<typeof ProductCollectionObject>;

export const ProductCollectionParams = Type.Object({ productCollectionId: Type.String({ minLength: 1, description: 'pc_…' }) });

const Page = Type.Integer({ minimum: 1, maximum: 100, default: 1 });
const Order = Type.Enum(['created_at', '-created_at']);

export const ListProductCollectionsQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Page),
  order: Type.Optional(Order),
});
export type ListProductCollectionsInput = Static<typeof ListProductCollectionsQuery>;

export const ProductCollectionList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(ProductCollectionObject),
  total: Type.Integer(),
});

export const ListCollectionProductsQuery = Type.Object({
  limit: Type.Optional(Limit),
  page: Type.Optional(Page),
  order: Type.Optional(Type.Enum(['created_at', '-created_at'], { description: 'By the creation of the products and SKUs; default created_at' })),
  starting_after: Type.Optional(
    Type.String({ format: 'date-or-date-time', description: 'Cursor on created_at: members created after it (before it for -created_at)' }),
  ),
});
export type ListCollectionProductsInput = Static<typeof ListCollectionProductsQuery>;

export const ProductOut = Type.Object(
  {
    id: Type.String(),
    source_id: Nullable(Type.String()),
    name: Nullable(Type.String()),
    price: Nullable(Type.Integer()),
    attributes: Type.Array(Type.String()),
    metadata: Metadata,
    image_url: Nullable(Type.String()),
    created_at: DateTime,
    updated_at: Nullable(DateTime),
    object: Type.Literal('product'),
  },
  { description: 'A product in the collection' },
);

export const SkuOut = Type.Object(
  {
    id: Type.String(),
    source_id: Nullable(Type.String()),
    product_id: Type.String(),
    sku: Nullable(Type.String()),
    price: Nullable(Type.Integer()),
    currency: Nullable(Type.String()),
    attributes: Type.Record(Type.String(), Type.Unknown()),
    image_url: Nullable(Type.String()),
    metadata: Metadata,
    created_at: DateTime,
    updated_at: Nullable(DateTime),
    object: Type.Literal('sku'),
    product: Type.Object({
      id: Type.String(),
      source_id: Nullable(Type.String()),
      name: Nullable(Type.String()),
      price: Nullable(Type.Integer()),
      attributes: Type.Array(Type.String()),
      metadata: Metadata,
      object: Type.Literal('product'),
    }),
  },
  { description: 'A SKU in the collection, with its product' },
);

export const CollectionProductList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(Type.Union([ProductOut, SkuOut])),
  total: Type.Integer({ description: 'Members in total, whatever the page or cursor' }),
});
export type CollectionProductListOut = Static<typeof CollectionProductList>;
