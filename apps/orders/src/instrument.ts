// OpenTelemetry before anything it instruments is loaded: main.ts imports this first (ADR 0014).
import { startTracing } from '@mw/platform/tracing';

startTracing('orders');
