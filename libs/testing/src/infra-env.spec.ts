import { parseExportLine } from './infra-env';

describe('parseExportLine', () => {
  it('reads the export line of npm run infra:env, quoted values included', () => {
    expect(
      parseExportLine(
        `export KAFKA_BROKERS=127.0.0.1:19092 MONGO_URL='mongodb://a:1,b:2/?replicaSet=rs0' P='it'\\''s x'\n`,
      ),
    ).toEqual({
      KAFKA_BROKERS: '127.0.0.1:19092',
      MONGO_URL: 'mongodb://a:1,b:2/?replicaSet=rs0',
      P: "it's x",
    });
  });
});
