import { basketSeries, cancellationSeries } from './analytics-series';

describe('analytics series for the charts', () => {
  it('basket: one bar per day, days ascending, the average basket in roubles (none sold: 0)', () => {
    const s = basketSeries(
      {
        from: '2026-11-01',
        to: '2026-11-03',
        zone: null,
        currency: 'RUB',
        orders: 3,
        revenue: '24369.60',
        units: 6,
        average_basket: '8123.20',
        by_day: [
          { day: '2026-11-02', orders: 1, revenue: '3789.90', average_basket: '3789.90' },
          { day: '2026-11-01', orders: 2, revenue: '20579.70', average_basket: '10289.85' },
          { day: '2026-11-03', orders: 0, revenue: '0.00', average_basket: null },
        ],
      },
      'avg',
    );
    expect(s).toEqual({
      labels: ['2026-11-01', '2026-11-02', '2026-11-03'],
      datasets: [{ label: 'avg', values: [10289.85, 3789.9, 0] }],
    });
  });

  it('cancellations: one bar per reason, most cancelled first', () => {
    const s = cancellationSeries(
      {
        from: '2026-11-01',
        to: '2026-11-30',
        zone: null,
        placed: 40,
        cancelled: 3,
        rate: 0.075,
        sales_reversed: 0,
        by_reason: [
          { reason: 'STOCK_REJECTED', cancelled: 1, rate: 0.025 },
          { reason: 'PAYMENT_DECLINED', cancelled: 2, rate: 0.05 },
          { reason: 'OTHER', cancelled: 0, rate: 0 },
        ],
      },
      'n',
    );
    expect(s.labels).toEqual(['PAYMENT_DECLINED', 'STOCK_REJECTED', 'OTHER']);
    expect(s.datasets[0]?.values).toEqual([2, 1, 0]);
  });
});
