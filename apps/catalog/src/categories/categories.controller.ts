import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { validate } from '@mw/platform';
import { openApi, slugParam } from '../shared/http-schemas';
import { CategoriesService, CategoryView } from './categories.service';
import { Category, CategoryTreeNode } from './category';
import { CreateCategoryBody, MoveCategoryBody, RenameCategoryBody } from './categories.dto';

@ApiTags('categories')
@Controller('categories')
export class CategoriesController {
  constructor(private readonly categories: CategoriesService) {}

  @Post()
  @ApiOperation({ summary: 'Create a category under a parent (parent_id null: a root)' })
  @ApiBody({ schema: openApi(CreateCategoryBody) })
  @ApiResponse({ status: 409, description: 'CATALOG.DUPLICATE_SLUG' })
  create(@Body() body: unknown): Promise<Category> {
    return this.categories.create(validate(CreateCategoryBody, body, 'body'));
  }

  @Get()
  @ApiOperation({ summary: 'The whole category tree' })
  tree(): Promise<CategoryTreeNode[]> {
    return this.categories.tree();
  }

  @Get(':slug')
  @ApiOperation({ summary: 'A category by slug with breadcrumbs and children' })
  @ApiResponse({ status: 404, description: 'CATALOG.CATEGORY_NOT_FOUND' })
  get(@Param('slug') slug: string): Promise<CategoryView> {
    return this.categories.get(slugParam(slug));
  }

  @Patch(':slug')
  @ApiOperation({ summary: 'Rename (descendants\u2019 breadcrumbs follow)' })
  @ApiBody({ schema: openApi(RenameCategoryBody) })
  @ApiResponse({ status: 409, description: 'CATALOG.CONCURRENT_MODIFICATION' })
  rename(@Param('slug') slug: string, @Body() body: unknown): Promise<Category> {
    return this.categories.rename(slugParam(slug), validate(RenameCategoryBody, body, 'body').name);
  }

  @Post(':slug/move')
  @HttpCode(200)
  @ApiOperation({ summary: 'Move the subtree under another parent; descendants and their products follow' })
  @ApiBody({ schema: openApi(MoveCategoryBody) })
  @ApiResponse({
    status: 409,
    description:
      'CATALOG.MOVE_INTO_OWN_SUBTREE; CATALOG.MOVE_IN_PROGRESS (another move holds the tree, retry later); CATALOG.CONCURRENT_MODIFICATION',
  })
  move(@Param('slug') slug: string, @Body() body: unknown): Promise<Category> {
    return this.categories.move(slugParam(slug), validate(MoveCategoryBody, body, 'body').parent_id);
  }

  @Delete(':slug')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an empty category' })
  @ApiResponse({ status: 409, description: 'CATALOG.CATEGORY_NOT_EMPTY; CATALOG.CONCURRENT_MODIFICATION' })
  delete(@Param('slug') slug: string): Promise<void> {
    return this.categories.delete(slugParam(slug));
  }
}
