// Limits of categories, shared by the wire contract (src/api/categories.ts) and the services that create
// categories from names read elsewhere (a CSV cell). Here rather than in src/api so that a separate
// worker, which creates categories by name when it imports, does not load the API's schemas for it.

/** The longest category name. */
export const CATEGORY_NAME_MAX_LENGTH = 200;
