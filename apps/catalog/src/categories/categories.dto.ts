import { z } from 'zod';
import { ObjectIdParam, SlugParam } from '../shared/http-schemas';

const Name = z.string().trim().min(1).max(200);

export const CreateCategoryBody = z.strictObject({
  name: Name,
  slug: SlugParam,
  parent_id: ObjectIdParam.nullable().default(null),
});
export const RenameCategoryBody = z.strictObject({ name: Name });
export const MoveCategoryBody = z.strictObject({ parent_id: ObjectIdParam.nullable() });
