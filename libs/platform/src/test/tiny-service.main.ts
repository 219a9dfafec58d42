/** A minimal service main() for the start-up failure tests (run as a child process). */
import { Module } from '@nestjs/common';
import { z } from 'zod';
import { baseConfigSchema, env, loadConfig } from '../config/load-config';
import { bootstrapService } from '../bootstrap/run-service';
import { PlatformModule } from '../bootstrap/platform.module';

@Module({})
class TinyModule {}

const schema = baseConfigSchema.extend({ HTTP_PORT: env.port(0), MONGO_URL: env.mongoUrl(), KAFKA_GROUP_ID: z.string().default('tiny') });

bootstrapService({
  name: 'tiny',
  api: { name: 'tiny', title: 'tiny', description: 'start-up failure probe', version: '1', controllers: [] },
  loadConfig: () => loadConfig(schema),
  rootModule: (_config, logger) => ({ module: TinyModule, imports: [PlatformModule.forRoot(logger)] }),
});
