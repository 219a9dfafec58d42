import { Controller } from '@nestjs/common';
import { Endpoint, Input, InputOf } from '@mw/platform';
import { CategoriesService, CategoryView } from './categories.service';
import { Category, CategoryTreeNode } from './category';
import {
  createCategory,
  deleteCategory,
  getCategory,
  getCategoryTree,
  moveCategory,
  renameCategory,
} from './categories.endpoints';

@Controller()
export class CategoriesController {
  constructor(private readonly categories: CategoriesService) {}

  @Endpoint(createCategory)
  create(@Input() input: InputOf<typeof createCategory>): Promise<Category> {
    return this.categories.create(input.body);
  }

  @Endpoint(getCategoryTree)
  tree(): Promise<CategoryTreeNode[]> {
    return this.categories.tree();
  }

  @Endpoint(getCategory)
  get(@Input() input: InputOf<typeof getCategory>): Promise<CategoryView> {
    return this.categories.get(input.params.slug);
  }

  @Endpoint(renameCategory)
  rename(@Input() input: InputOf<typeof renameCategory>): Promise<Category> {
    return this.categories.rename(input.params.slug, input.body.name);
  }

  @Endpoint(moveCategory)
  move(@Input() input: InputOf<typeof moveCategory>): Promise<Category> {
    return this.categories.move(input.params.slug, input.body.parent_id);
  }

  @Endpoint(deleteCategory)
  delete(@Input() input: InputOf<typeof deleteCategory>): Promise<void> {
    return this.categories.delete(input.params.slug);
  }
}
