export { createApp } from './app.ts';
export { createServerContext, type ServerContext } from './boot.ts';
export { loadConfig, type ServerConfig } from './config.ts';
export { startServer, type RunningServer } from './server.ts';
export { startJobWorker, type JobWorkerOptions, type RunningJobWorker } from './jobs/worker.ts';
export { openRegistry, type OpenedRegistry } from './models/open.ts';
export { gate, gateText, type GateVerdict, type ModelRegistry, type ModelVersion } from './models/registry.ts';
