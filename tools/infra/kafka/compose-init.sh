#!/bin/sh
# The compose kafka-init job, as the admin: every contract topic and its DLQ, then the ACL table
# (compose-acls.sh, generated from libs/contracts/src/access.ts). Idempotent. One broker by default;
# docker-compose.sharded.yml sets KAFKA_BOOTSTRAP to all three, KAFKA_REPLICATION_FACTOR=3, KAFKA_MIN_INSYNC_REPLICAS=2.
set -e
B="${KAFKA_BOOTSTRAP:-kafka:9092}"
RF="${KAFKA_REPLICATION_FACTOR:-1}"
ISR="${KAFKA_MIN_INSYNC_REPLICAS:-1}"
printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="%s";\n' "$KAFKA_ADMIN_PASSWORD" > /tmp/admin.properties
for t in catalog.products.v1 catalog.categories.v1 inventory.commands.v1 inventory.events.v1 carts.checkout.v1 orders.orders.v1; do
  /opt/kafka/bin/kafka-topics.sh --bootstrap-server "$B" --command-config /tmp/admin.properties --create --if-not-exists --topic "$t" --partitions 3 --replication-factor "$RF" --config min.insync.replicas="$ISR"
  /opt/kafka/bin/kafka-topics.sh --bootstrap-server "$B" --command-config /tmp/admin.properties --create --if-not-exists --topic "$t.dlq" --partitions 1 --replication-factor "$RF" --config min.insync.replicas="$ISR"
done
acl() { /opt/kafka/bin/kafka-acls.sh --bootstrap-server "$B" --command-config /tmp/admin.properties "$@" >/dev/null; }
. /mw/compose-acls.sh
echo "kafka-init: topics and ACLs in place"
