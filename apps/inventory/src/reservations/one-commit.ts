import { ClientSession, MongoClient, ReadPreference } from 'mongodb';

/**
 * How a group of ReserveStock or CommitStock is written (ADR 0015 §7): `transaction` — the claim,
 * the holds and the answer (or the sale and its status) in one multi-document transaction, one
 * majority commit; `stages` — three majority writes with a `reserving` / `pending` state between
 * them, each step resumable (ADR 0012 §4). `stages` stays the path of every group the transaction
 * gives up on, and a setting for a deployment that cannot bound an abandoned transaction's life
 * (`transactionLifetimeLimitSeconds`).
 */
export type GroupCommitMode = 'transaction' | 'stages';

/** Stops the driver's retry loop: a group that meets a conflict takes its staged path instead of retrying. */
class Contended extends Error {}

/**
 * One multi-document transaction, committed with `w: majority`, that is either all of `work` or
 * nothing. `work` answers false when its guards did not all hold (a line short, an order that
 * exists): the transaction is aborted and `run` answers false. A write conflict with another
 * writer, or a commit the server aborted, also answers false after the first attempt — the caller
 * takes its staged path, whose guards serialize on the documents instead of aborting each other.
 * A commit whose outcome is unknown is retried by the driver (the commit only, never `work`).
 */
export class OneCommit {
  constructor(private readonly client: MongoClient) {}

  async run(work: (session: ClientSession) => Promise<boolean>): Promise<boolean> {
    const session = this.client.startSession();
    let attempts = 0;
    try {
      return await session.withTransaction(
        async (s) => {
          if (++attempts > 1) throw new Contended();
          if (await work(s)) return true;
          await s.abortTransaction();
          return false;
        },
        { readPreference: ReadPreference.primary, writeConcern: { w: 'majority' } },
      );
    } catch (e) {
      if (e instanceof Contended) return false;
      throw e;
    } finally {
      await session.endSession();
    }
  }
}
