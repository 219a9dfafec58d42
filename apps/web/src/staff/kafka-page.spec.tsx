import { fireEvent, screen } from '@testing-library/react';
import { fakeFetch } from '../test/fake-fetch';
import { renderPage, signedIn } from '../test/render';
import { KafkaPage } from './kafka-page';

const letter = (redriven: boolean) => ({
  partition: 0,
  offset: '7',
  key: '2080b7bbfd2b207dcbe80bb1',
  group: 'inventory',
  error_code: 'TEST.REJECTED',
  reason: 'no',
  attempts: 1,
  parked_at: '2026-11-27T10:00:00.000Z',
  type: 'ReserveStock',
  redriven,
});

describe('operator: Kafka page', () => {
  it("shows the projector's lag and redrives one group's parked messages to their topic", async () => {
    await signedIn('otto', ['operator']);
    let moved = false;
    const { fetch, calls } = fakeFetch(({ method, url }) => {
      if (url.pathname === '/operations/consumer-lag') {
        const projector = {
          group: 'catalog-projector',
          total_lag: 4,
          partitions: [{ topic: 'catalog.products.v1', partition: 0, lag: 4 }],
        };
        return { status: 200, body: { as_of: '2026-11-27T10:00:00.000Z', groups: [projector], projector } };
      }
      if (url.pathname === '/operations/dead-letters')
        return {
          status: 200,
          body: {
            topics: [
              { topic: 'inventory.commands.v1', dlq: 'inventory.commands.v1.dlq', messages: [letter(moved)] },
            ],
          },
        };
      if (method === 'POST' && url.pathname === '/operations/dead-letters/inventory.commands.v1/redrive') {
        moved = true;
        return {
          status: 200,
          body: { dlq: 'inventory.commands.v1.dlq', group: 'inventory', moved: 1, passed: 0 },
        };
      }
      return { status: 500 };
    });
    renderPage(fetch, { path: '/staff/kafka', route: '/staff/kafka', page: <KafkaPage /> });
    expect(await screen.findByText('Catalog projector (catalog-projector): 4 events behind')).toBeTruthy();
    fireEvent.click(
      await screen.findByRole('button', { name: 'Redrive inventory’s messages to inventory.commands.v1' }),
    );
    expect(
      await screen.findByText(
        'Moved 1 message(s) of inventory from inventory.commands.v1.dlq back to their topic.',
      ),
    ).toBeTruthy();
    expect(await screen.findByText('redriven')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ group: 'inventory' });
  });
});
