/** A minimal service main() for the start-up failure tests (run as a child process). */
import { Module, OnModuleInit } from '@nestjs/common';
import { MongoWriteConcernError } from 'mongodb';
import { z } from 'zod';
import { baseConfigSchema, env, loadConfig } from '../config/load-config';
import { bootstrapService } from '../bootstrap/run-service';
import { PlatformModule } from '../bootstrap/platform.module';

/**
 * Test hooks of the start-retry probe (transient-start.int-spec.ts): the module's init fails the
 * first TINY_TRANSIENT_FAILURES attempts as a MongoDB election does, or every attempt with a
 * permanent error when TINY_PERMANENT_FAILURE is set.
 */
const transientFailures = Number(process.env['TINY_TRANSIENT_FAILURES'] ?? 0);
const permanentFailure = process.env['TINY_PERMANENT_FAILURE'];
let attempts = 0;

@Module({})
class TinyModule implements OnModuleInit {
  onModuleInit(): void {
    attempts++;
    if (permanentFailure) throw new Error(permanentFailure);
    if (attempts <= transientFailures) {
      throw new MongoWriteConcernError({ writeConcernError: { code: 189, codeName: 'PrimarySteppedDown', errmsg: 'Primary stepped down while waiting for replication' } } as never);
    }
  }
}

const schema = baseConfigSchema.extend({ HTTP_PORT: env.port(0), MONGO_URL: env.mongoUrl(), KAFKA_GROUP_ID: z.string().default('tiny') });

bootstrapService({
  name: 'tiny',
  api: { name: 'tiny', title: 'tiny', description: 'start-up failure probe', version: '1', controllers: [] },
  loadConfig: () => loadConfig(schema),
  rootModule: (_config, logger) => ({ module: TinyModule, imports: [PlatformModule.forRoot(logger)] }),
});
