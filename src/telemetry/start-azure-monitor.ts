import { readTelemetrySettings } from '../config/telemetry-settings';
import { startAzureMonitor } from './azure-monitor';

// The first import of functions/index.ts: the instrumentations must be in place before
// @azure/functions and http load. A bad telemetry setting starts nothing here;
// the configuration check at start names it with every other problem.
const problems: string[] = [];
const settings = readTelemetrySettings(process.env, problems);
if (problems.length === 0) startAzureMonitor(settings);
