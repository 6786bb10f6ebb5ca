export * from './app-config';
export * from './connector-settings';
export * from './base-url';
export * from './telemetry-settings';
