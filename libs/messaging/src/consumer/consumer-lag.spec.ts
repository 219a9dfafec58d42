import { lagRows } from './consumer-lag';

describe('lagRows', () => {
  const ends = [
    {
      topic: 't',
      partitions: [
        { partition: 0, high: '10' },
        { partition: 1, high: '4' },
        { partition: 2, high: '7' },
      ],
    },
  ];

  it('end − committed per group and partition; never-committed partitions and unknown topics have no row', () => {
    expect(
      lagRows(
        [
          {
            group: 'g',
            topic: 't',
            partitions: [
              { partition: 0, offset: '3' },
              { partition: 1, offset: '-1' },
              { partition: 2, offset: '7' },
            ],
          },
          { group: 'h', topic: 'other', partitions: [{ partition: 0, offset: '1' }] },
        ],
        ends,
      ),
    ).toEqual([
      { group: 'g', topic: 't', partition: 0, lag: 7 },
      { group: 'g', topic: 't', partition: 2, lag: 0 },
    ]);
  });

  it('a committed offset past the end (topic recreated) counts as no lag, never negative', () => {
    expect(lagRows([{ group: 'g', topic: 't', partitions: [{ partition: 1, offset: '9' }] }], ends)).toEqual([
      { group: 'g', topic: 't', partition: 1, lag: 0 },
    ]);
  });
});
