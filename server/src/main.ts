/** Starts the server: `npm start` (after building the web app) or `npm run serve`. */
import { loadConfig } from './config.ts';
import { startServer } from './server.ts';

const config = loadConfig();
const running = await startServer(config);
console.log(
  `Mango Bruise Tracker listening on http://localhost:${running.port} (data in ${config.dataDir}, ${running.ctx.dialect})`,
);

const stop = async () => {
  await running.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
