// OpenTelemetry before anything it instruments is loaded: projector.main.ts imports this first (ADR 0014).
import { startTracing } from '@mw/platform/tracing';

startTracing('catalog-projector');
