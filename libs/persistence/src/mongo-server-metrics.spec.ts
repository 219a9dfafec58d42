import { memberRows, memberUrl } from './mongo-server-metrics';

describe('replica-set members', () => {
  const at = (s: number): Date => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

  it('lag of each member = primary optime − its optime; an unhealthy member has none; no primary, no lag', () => {
    expect(
      memberRows([
        { name: 'a:1', health: 1, stateStr: 'PRIMARY', optimeDate: at(30) },
        { name: 'b:2', health: 1, stateStr: 'SECONDARY', optimeDate: at(18) },
        { name: 'c:3', health: 0, stateStr: '(not reachable/healthy)', optimeDate: at(0) },
      ]),
    ).toEqual([
      { member: 'a:1', healthy: true, primary: true, lagSeconds: 0 },
      { member: 'b:2', healthy: true, primary: false, lagSeconds: 12 },
      { member: 'c:3', healthy: false, primary: false, lagSeconds: undefined },
    ]);
    expect(
      memberRows([{ name: 'b:2', health: 1, stateStr: 'SECONDARY', optimeDate: at(1) }])[0]?.lagSeconds,
    ).toBeUndefined();
  });

  it('a member URL is a direct connection with the set URL credentials and options, without replicaSet', () => {
    expect(memberUrl('mongodb://u:p@h1:27217,h2:27218/?replicaSet=rs0&authSource=admin', 'h2:27218')).toBe(
      'mongodb://u:p@h2:27218/?authSource=admin&directConnection=true',
    );
    expect(memberUrl('mongodb://127.0.0.1:27217,127.0.0.1:27218/db?replicaSet=rs0', '127.0.0.1:27218')).toBe(
      'mongodb://127.0.0.1:27218/db?directConnection=true',
    );
  });
});
