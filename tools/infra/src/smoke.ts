/**
 * End-to-end check of running infrastructure with the real client libraries:
 * Kafka produce + consume of one message, Cassandra keyspace + table + insert + select.
 * Used by `tsx tools/infra/src/cli.ts smoke [kafka|cassandra]`.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'cassandra-driver';
import { Kafka, logLevel } from 'kafkajs';
import { KAFKA_ADMIN_PRINCIPAL, kafkaSasl } from './servers/kafka-security';

export async function smokeKafka(brokers: string): Promise<string> {
  const started = Date.now();
  // as the admin: the smoke topic is nobody's (ADR 0009)
  const kafka = new Kafka({
    clientId: 'infra-smoke',
    brokers: brokers.split(','),
    sasl: kafkaSasl(KAFKA_ADMIN_PRINCIPAL),
    logLevel: logLevel.ERROR,
  });
  const topic = `infra-smoke-${Date.now()}`;
  const payload = `hello ${randomUUID()}`;
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: 'k', value: payload }] });
    await producer.disconnect();

    const consumer = kafka.consumer({ groupId: `${topic}-group` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const received = await new Promise<string>((resolveMessage, rejectMessage) => {
      const timer = setTimeout(() => rejectMessage(new Error(`no message on ${topic} within 60s`)), 60_000);
      void consumer.run({
        eachMessage: async ({ message }) => {
          clearTimeout(timer);
          resolveMessage(message.value?.toString() ?? '');
        },
      });
    });
    await consumer.disconnect();
    if (received !== payload) throw new Error(`kafka smoke: expected "${payload}", got "${received}"`);
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  } finally {
    await admin.disconnect();
  }
  return `kafka: produced and consumed 1 message on ${topic} in ${((Date.now() - started) / 1000).toFixed(1)}s`;
}

export async function smokeCassandra(contactPoints: string, datacenter: string): Promise<string> {
  const started = Date.now();
  const client = new Client({ contactPoints: contactPoints.split(','), localDataCenter: datacenter });
  await client.connect();
  try {
    await client.execute(
      "CREATE KEYSPACE IF NOT EXISTS infra_smoke WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    );
    await client.execute(
      'CREATE TABLE IF NOT EXISTS infra_smoke.items (id uuid PRIMARY KEY, name text, qty int)',
    );
    const id = randomUUID();
    await client.execute('INSERT INTO infra_smoke.items (id, name, qty) VALUES (?, ?, ?)', [id, 'phone', 3], {
      prepare: true,
    });
    const row = (
      await client.execute('SELECT name, qty FROM infra_smoke.items WHERE id = ?', [id], { prepare: true })
    ).first();
    if (row?.get('name') !== 'phone' || row.get('qty') !== 3)
      throw new Error('cassandra smoke: row not read back');
    await client.execute('DROP KEYSPACE infra_smoke');
  } finally {
    await client.shutdown();
  }
  return `cassandra: created keyspace + table, inserted and selected 1 row in ${((Date.now() - started) / 1000).toFixed(1)}s`;
}
