#!/bin/bash
# The compose broker (apache/kafka image) configured like tools/infra's local one (ADR 0009):
# SASL/SCRAM-SHA-512 on the client listener, ACLs only (StandardAuthorizer), the controller
# listener PLAINTEXT inside the container. SCRAM credentials are bootstrapped when the storage is
# formatted; passwords come from the environment (KAFKA_ADMIN_PASSWORD, KAFKA_PASSWORD_<PRINCIPAL>).
# One node by default; docker-compose.sharded.yml runs three (ADR 0010) by setting KAFKA_NODE_ID,
# KAFKA_CONTROLLER_QUORUM_VOTERS, KAFKA_ADVERTISED_HOST and the replication settings below.
set -euo pipefail
: "${KAFKA_ADMIN_PASSWORD:?}"
CONFIG=/tmp/server.properties
cat > "$CONFIG" <<PROPS
process.roles=broker,controller
node.id=${KAFKA_NODE_ID:-1}
controller.quorum.voters=${KAFKA_CONTROLLER_QUORUM_VOTERS:-1@localhost:9093}
listeners=SASL_PLAINTEXT://:9092,CONTROLLER://${KAFKA_CONTROLLER_HOST:-localhost}:9093
advertised.listeners=SASL_PLAINTEXT://${KAFKA_ADVERTISED_HOST:-kafka}:9092
inter.broker.listener.name=SASL_PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="${KAFKA_ADMIN_PASSWORD}";
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=false
super.users=User:admin;User:ANONYMOUS
log.dirs=/var/lib/kafka/data
num.partitions=1
offsets.topic.replication.factor=${KAFKA_REPLICATION_FACTOR:-1}
transaction.state.log.replication.factor=${KAFKA_REPLICATION_FACTOR:-1}
transaction.state.log.min.isr=${KAFKA_MIN_INSYNC_REPLICAS:-1}
default.replication.factor=${KAFKA_REPLICATION_FACTOR:-1}
min.insync.replicas=${KAFKA_MIN_INSYNC_REPLICAS:-1}
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
PROPS
scram=(--add-scram "SCRAM-SHA-512=[name=admin,password=${KAFKA_ADMIN_PASSWORD}]")
for principal in catalog catalog-projector inventory carts orders ops; do
  var="KAFKA_PASSWORD_$(echo "$principal" | tr 'a-z-' 'A-Z_')"
  scram+=(--add-scram "SCRAM-SHA-512=[name=${principal},password=${!var:?$var is required}]")
done
/opt/kafka/bin/kafka-storage.sh format --ignore-formatted -t "${CLUSTER_ID:-mobile-world-compose-01}" -c "$CONFIG" "${scram[@]}"
printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="%s";\n' "$KAFKA_ADMIN_PASSWORD" > /tmp/admin.properties
exec /opt/kafka/bin/kafka-server-start.sh "$CONFIG"
