import { Client, errors } from 'cassandra-driver';
import { cassandraReplication, connectBoundClient, executeSchemaStatement, isTransientCassandraError } from './cassandra.module';

/** A client whose `execute` answers from a script: the retry policy is what is under test, not the driver. */
function scripted(answers: ReadonlyArray<Error | 'ok'>): { client: Client; calls: string[] } {
  const calls: string[] = [];
  let i = 0;
  const client = {
    execute: (cql: string) => {
      calls.push(cql);
      const a = answers[Math.min(i++, answers.length - 1)];
      return a === 'ok' ? Promise.resolve({}) : Promise.reject(a);
    },
  } as unknown as Client;
  return { client, calls };
}
const noSleep = (): Promise<void> => Promise.resolve();

describe('cassandraReplication', () => {
  it('is SimpleStrategy with one replica on a single node, NetworkTopologyStrategy in the local datacenter otherwise', () => {
    expect(cassandraReplication(1, 'dc1')).toEqual({ class: 'SimpleStrategy', replication_factor: 1 });
    expect(cassandraReplication(3, 'datacenter1')).toEqual({ class: 'NetworkTopologyStrategy', datacenter1: 3 });
  });
});

describe('executeSchemaStatement', () => {
  it('retries a coordinator that did not reply in time until the statement goes through (issue 32)', async () => {
    const timeout = new errors.OperationTimedOutError('The host 198.18.0.22:9042 did not reply before timeout 12000 ms');
    const { client, calls } = scripted([timeout, new errors.NoHostAvailableError({}), new errors.ResponseError(0x1001, 'overloaded'), 'ok']);
    await executeSchemaStatement(client, 'CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY)', { sleep: noSleep });
    expect(calls).toHaveLength(4);
  });

  it('fails at once on a statement that is wrong, without a retry', async () => {
    const syntax = new errors.ResponseError(0x2000, "line 1:7 no viable alternative at input 'TABL'");
    const { client, calls } = scripted([syntax, 'ok']);
    await expect(executeSchemaStatement(client, 'CREATE TABL t', { sleep: noSleep })).rejects.toBe(syntax);
    expect(calls).toHaveLength(1);
  });

  it('waits for schema agreement when another instance’s new type has not reached this coordinator yet, a few times only', async () => {
    const unknownType = new errors.ResponseError(0x2200, 'Unknown type carts_x.cart_line');
    const agreements: number[] = [];
    const settles = scripted([unknownType, unknownType, 'ok']);
    (settles.client as unknown as { metadata: unknown }).metadata = { checkSchemaAgreement: () => Promise.resolve(agreements.push(1) > 0) };
    await executeSchemaStatement(settles.client, 'CREATE TABLE IF NOT EXISTS carts (id uuid PRIMARY KEY, lines list<frozen<cart_line>>)', { sleep: noSleep });
    expect(settles.calls).toHaveLength(3);
    expect(agreements).toHaveLength(2);
    // a type that never comes (a typo) fails after a handful of attempts, not at the 2-minute deadline
    const typo = scripted([unknownType]);
    (typo.client as unknown as { metadata: unknown }).metadata = { checkSchemaAgreement: () => Promise.resolve(true) };
    await expect(executeSchemaStatement(typo.client, 'CREATE TABLE IF NOT EXISTS t (l frozen<cart_lin>)', { sleep: noSleep })).rejects.toBe(unknownType);
    expect(typo.calls).toHaveLength(6);
  });

  it('connects a client bound to a keyspace another node has not learnt yet once it has, a wrong keyspace failing within a few attempts', async () => {
    const missing = new errors.ResponseError(0x2200, "Keyspace 'cr_x' does not exist");
    const connects = (answers: ReadonlyArray<Error | 'ok'>) => {
      let i = 0;
      const client = {
        connect: () => {
          const a = answers[Math.min(i++, answers.length - 1)];
          return a === 'ok' ? Promise.resolve() : Promise.reject(a);
        },
        metadata: { checkSchemaAgreement: () => Promise.resolve(true) },
      } as unknown as Client;
      return { client, count: () => i };
    };
    const settles = connects([missing, missing, 'ok']);
    await connectBoundClient(settles.client, { sleep: noSleep });
    expect(settles.count()).toBe(3);
    const typo = connects([missing]);
    await expect(connectBoundClient(typo.client, { sleep: noSleep })).rejects.toBe(missing);
    expect(typo.count()).toBe(6);
    const refused = connects([new Error('wrong credentials'), 'ok']);
    await expect(connectBoundClient(refused.client, { sleep: noSleep })).rejects.toThrow('wrong credentials');
    expect(refused.count()).toBe(1);
  });

  it('gives up on a transient answer once the deadline has passed', async () => {
    const timeout = new errors.OperationTimedOutError('did not reply before timeout');
    const { client, calls } = scripted([timeout]);
    await expect(executeSchemaStatement(client, 'CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY)', { deadlineMs: 0, sleep: noSleep })).rejects.toBe(timeout);
    expect(calls).toHaveLength(1);
  });

  it('tells transient answers from others', () => {
    expect(isTransientCassandraError(new errors.ResponseError(0x1100, 'Operation timed out - received only 1 responses'))).toBe(true);
    expect(isTransientCassandraError(new errors.ResponseError(0x2200, 'Keyspace x does not exist'))).toBe(false);
    expect(isTransientCassandraError(new Error('boom'))).toBe(false);
  });
});
