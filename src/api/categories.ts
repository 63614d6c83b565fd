import Type, { type Static } from 'typebox';
import { CATEGORY_NAME_MAX_LENGTH } from '../domain/categories/limits.ts';
import { StoredInteger } from './common.ts';

// Categories (platform reference 4.5). Names are unique within a project.

/**
 * The `category` member of voucher, campaign, promotion tier and import bodies: a category's name, which
 * creates the category when the project has none of that name (the id of an existing category is taken
 * too); `category_id` names an existing category by id.
 */
export function CategoryNameMember() {
  return Type.String({
    minLength: 1,
    maxLength: CATEGORY_NAME_MAX_LENGTH,
    description: 'Category name; a name the project does not have yet creates that category (hierarchy 1)',
  });
}

const CategoryFields = {
  name: Type.String({ minLength: 1, maxLength: CATEGORY_NAME_MAX_LENGTH, description: 'Unique within the project' }),
  hierarchy: StoredInteger('integer', {
    minimum: 0,
    description: 'Processing order: categories with a lower hierarchy are processed first',
  }),
};

export const CreateCategoryBody = Type.Object(CategoryFields);
export type CreateCategoryInput = Static<typeof CreateCategoryBody>;

/** The vendor requires both members on update too. */
export const UpdateCategoryBody = Type.Object(CategoryFields);
export type UpdateCategoryInput = Static<typeof UpdateCategoryBody>;

export const CategoryParams = Type.Object({
  categoryId: Type.String({ minLength: 1, description: 'Category id (cat_…)' }),
});

export const CategoryListQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 100,
      description: 'Page size; the vendor takes no parameters and lists every category, so the default is the maximum',
    }),
  ),
  starting_after_id: Type.Optional(
    Type.String({ minLength: 1, description: 'Id of the last category of the previous page (`more_starting_after`)' }),
  ),
});
export type CategoryListInput = Static<typeof CategoryListQuery>;

export const CategoryObject = Type.Object({
  id: Type.String({ description: 'cat_…' }),
  name: Type.String(),
  hierarchy: Type.Integer({ minimum: 0 }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.Optional(Type.String({ format: 'date-time', description: 'Present once the category was updated' })),
  object: Type.Literal('category'),
});

export const CategoryList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(CategoryObject, { description: 'Newest first' }),
  total: Type.Integer({ description: 'Number of categories in the project' }),
  has_more: Type.Boolean(),
  more_starting_after: Type.Optional(Type.String({ description: 'Pass as starting_after_id for the next page; only when has_more' })),
});
