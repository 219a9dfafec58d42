import { Db, MongoServerError } from 'mongodb';

export interface LeaseDoc {
  _id: string;
  owner: string;
  /** Bumped at every change of owner: the relay re-registers its Kafka producer when it changes. */
  epoch: number;
  expires_at: Date;
}

export const LEASES_COLLECTION = 'outbox_leases';

/**
 * Takes or renews the lease `name` for `owner`, judged by the server's clock ($$NOW), never by the
 * caller's: a free or expired lease changes owner (epoch + 1), one held by another live owner does
 * not. One atomic update; returns whether `owner` holds it now and its epoch.
 */
export async function acquireLease(db: Db, name: string, owner: string, leaseMs: number): Promise<{ owned: boolean; epoch: number }> {
  const free = { $or: [{ $eq: ['$owner', owner] }, { $lte: [{ $ifNull: ['$expires_at', new Date(0)] }, '$$NOW'] }] };
  const takeover = { $and: [free, { $ne: ['$owner', owner] }] };
  try {
    const res = await db.collection<LeaseDoc>(LEASES_COLLECTION).findOneAndUpdate(
      { _id: name },
      [
        {
          $set: {
            epoch: { $cond: [takeover, { $add: [{ $ifNull: ['$epoch', 0] }, 1] }, { $ifNull: ['$epoch', 0] }] },
            owner: { $cond: [free, owner, '$owner'] },
            expires_at: { $cond: [free, { $add: ['$$NOW', leaseMs] }, '$expires_at'] },
          },
        },
      ],
      { upsert: true, returnDocument: 'after' },
    );
    return { owned: res?.owner === owner, epoch: res?.epoch ?? 0 };
  } catch (e) {
    if (e instanceof MongoServerError && e.code === 11000) return { owned: false, epoch: 0 }; // lost the race to create it
    throw e;
  }
}

/** Lets the next relay take over at once (the epoch stays, so the next owner's is higher). */
export async function releaseLease(db: Db, name: string, owner: string): Promise<void> {
  await db.collection<LeaseDoc>(LEASES_COLLECTION).updateOne({ _id: name, owner }, [{ $set: { expires_at: '$$NOW' } }]);
}
