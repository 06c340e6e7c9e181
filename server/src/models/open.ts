/**
 * The registry of a deployment, opened the way a server opens it (`mango models`, `mango train`):
 * `--data-dir DIR` (SQLite in DIR, files in DIR/models) or `--database postgres://...`.
 */
import { loadConfig } from '../config.ts';
import { migrateToLatest, openDatabase } from '../db/index.ts';
import { createModelRegistry, type ModelRegistry } from './registry.ts';

export interface OpenedRegistry {
  registry: ModelRegistry;
  close(): Promise<void>;
}

export async function openRegistry(where: { dataDir?: string; databaseUrl?: string }): Promise<OpenedRegistry> {
  const config = loadConfig(process.env, {
    ...(where.dataDir ? { dataDir: where.dataDir } : {}),
    ...(where.databaseUrl ? { databaseUrl: where.databaseUrl } : {}),
  });
  const opened = openDatabase(config);
  await migrateToLatest(opened);
  const registry = createModelRegistry({ ...opened, dataDir: config.dataDir, modelsDir: config.modelsDir });
  return { registry, close: () => opened.close() };
}
