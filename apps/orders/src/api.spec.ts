import { committedApiDocument } from '@mw/testing';
import { api } from './api';
import { getOrder, historyExample, listOrders, orderExample } from './orders/orders.endpoints';
import { OrderHistoryPage, OrderView } from './orders/order-view';

describe('orders API document', () => {
  it('the committed docs/api/orders.openapi.json is what the endpoint declarations build', () => {
    const { committed, built, file } = committedApiDocument(api);
    try {
      expect(committed).toEqual(built);
    } catch (e) {
      throw new Error(`${file} is stale or missing: run "npm run api:docs" and commit it\n${(e as Error).message}`);
    }
  });

  it('documents examples that are valid answers', () => {
    expect(OrderView.parse(orderExample)).toEqual(orderExample);
    expect(OrderHistoryPage.parse(historyExample)).toEqual(historyExample);
    expect(getOrder.response.example).toBe(orderExample);
    expect(listOrders.response.example).toBe(historyExample);
  });
});
