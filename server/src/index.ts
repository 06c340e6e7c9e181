export { createApp } from './app.ts';
export { createServerContext, type ServerContext } from './boot.ts';
export { loadConfig, type ServerConfig } from './config.ts';
export { startServer, type RunningServer } from './server.ts';
export { startJobWorker, type JobWorkerOptions, type RunningJobWorker } from './jobs/worker.ts';
