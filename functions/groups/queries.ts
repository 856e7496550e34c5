/** The group list's sort fields: the handler checks them, the OpenAPI document lists them. */
export const groupSorts = ['name', 'created_at'] as const
