import { mongoStatementShape } from './mongo-statement';
import { kafkaJsInstrumentation, mongoDbInstrumentation } from './start-tracing';

type Config = { eachBatch?: () => Promise<void>; eachMessage?: () => Promise<void> };
/** The instrumentation's own patch of kafkajs `consumer.run`, applied to a run that records what kafkajs would be given. */
function patchedRun(given: Config[]): (config: Config) => void {
  const instrumentation = kafkaJsInstrumentation() as unknown as {
    _getConsumerRunPatch(): (run: (config: Config) => void) => (this: unknown, config: Config) => void;
  };
  const run = instrumentation._getConsumerRunPatch()((config) => {
    given.push({ ...config });
  });
  return (config) => run.call({}, config);
}

describe('kafkajs instrumentation', () => {
  it('hands a batch consumer its own eachBatch (no span per message) and still wraps eachMessage', () => {
    const given: Config[] = [];
    const run = patchedRun(given);
    const eachBatch = async (): Promise<void> => undefined;
    const eachMessage = async (): Promise<void> => undefined;
    run({ eachBatch });
    run({ eachMessage });
    expect(given[0]?.eachBatch).toBe(eachBatch);
    expect(given[1]?.eachMessage).toEqual(expect.any(Function));
    expect(given[1]?.eachMessage).not.toBe(eachMessage);
  });
});

describe('MongoDB instrumentation', () => {
  it('writes the statement with the shape serializer, not the one that walks every value', () => {
    expect(mongoDbInstrumentation().getConfig()).toMatchObject({ requireParentSpan: true, dbStatementSerializer: mongoStatementShape });
  });
});
