// Generated from libs/persistence/src/sharding/shard-keys.ts by tools/infra — do not edit:
//   npx tsx --tsconfig tsconfig.base.json tools/infra/src/cli.ts compose-shards > tools/infra/mongo/compose-shard-init.js
// Run by the mongo-shard-init job of docker-compose.sharded.yml against mongos (ADR 0010).
const ok = (r) => { if (r && r.ok !== 1) throw new Error(JSON.stringify(r)); return r; };
const listed = db.adminCommand({ listShards: 1 }).shards.map((s) => s._id);
if (!listed.includes("shard1")) ok(sh.addShard("shard1/shard1-1:27018,shard1-2:27018,shard1-3:27018"));
if (!listed.includes("shard2")) ok(sh.addShard("shard2/shard2-1:27018,shard2-2:27018,shard2-3:27018"));
ok(sh.enableSharding("orders"));
ok(sh.enableSharding("inventory"));
ok(sh.enableSharding("catalog"));
ok(sh.addShardToZone("shard1", "MSK"));
ok(sh.addShardToZone("shard2", "SPB"));
ok(sh.addShardToZone("shard2", "EKB"));
ok(sh.updateZoneKeyRange("orders.orders", { zone: "MSK", user_id: MinKey }, { zone: "MSK", user_id: MaxKey }, "MSK"));
ok(sh.updateZoneKeyRange("orders.orders", { zone: "SPB", user_id: MinKey }, { zone: "SPB", user_id: MaxKey }, "SPB"));
ok(sh.updateZoneKeyRange("orders.orders", { zone: "EKB", user_id: MinKey }, { zone: "EKB", user_id: MaxKey }, "EKB"));
ok(sh.shardCollection("orders.orders", {"zone":1,"user_id":"hashed"}));
ok(sh.shardCollection("orders.checkout_rejections", {"_id":"hashed"}));
ok(sh.shardCollection("orders.analytics_products", {"_id":"hashed"}));
ok(sh.shardCollection("orders.analytics_applied", {"_id":"hashed"}));
ok(sh.shardCollection("orders.payment_sim_payments", {"_id":"hashed"}));
ok(sh.shardCollection("inventory.stock", {"_id":"hashed"}));
ok(sh.shardCollection("inventory.reservations", {"_id":"hashed"}));
ok(sh.shardCollection("inventory.ledger", {"_id":"hashed"}));
ok(sh.shardCollection("catalog.products", {"_id":"hashed"}));
print('mongo-shard-init: shards, shard keys and zones in place'); sh.status();
