import { ReplyTracker } from '../bench/replies';

describe('inventory benchmark reply bookkeeping (issue #22 item 14)', () => {
  it("a late reply to an earlier scenario's command does not shrink the running scenario's in-flight count", () => {
    const t = new ReplyTracker();
    t.begin();
    t.sent('a1', 0);
    t.sent('a2', 0);
    t.reply('a1', 'StockReserved', 1);
    t.end(); // scenario A ends by its budget with a2 unanswered
    t.begin();
    t.sent('b1', 2);
    t.sent('b2', 2);
    expect(t.outstanding).toBe(2);
    t.reply('a2', 'StockReserved', 3); // late: scenario A's
    expect(t.outstanding).toBe(2);
    t.reply('b1', 'StockRejected', 4);
    expect(t.outstanding).toBe(1);
    expect(t.replyTo('a2')).toEqual({ at: 3, type: 'StockReserved' });
  });

  it('a duplicated reply is counted once, with the time and type of the first', () => {
    const t = new ReplyTracker();
    t.begin();
    t.sent('c1', 0);
    t.reply('c1', 'StockReserved', 5);
    t.reply('c1', 'StockRejected', 9);
    expect(t.outstanding).toBe(0);
    expect(t.replyTo('c1')).toEqual({ at: 5, type: 'StockReserved' });
  });
});
