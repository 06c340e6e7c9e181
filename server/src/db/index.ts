/**
 * The database: better-sqlite3 in DATA_DIR by default (created on first start, WAL mode), or
 * PostgreSQL when DATABASE_URL=postgres://... Migrations run on every start and are idempotent;
 * on PostgreSQL several server instances may start at once (Kysely's migrator takes a lock).
 */
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type MigrationProvider } from 'kysely';
import type { Database } from './schema.ts';
import { migrations, type Dialect } from './migrations.ts';
import { ensurePrivateDir, ensurePrivateFile } from './private-files.ts';

export type { Database } from './schema.ts';
export type DB = Kysely<Database>;

export interface OpenedDatabase {
  db: DB;
  dialect: Dialect;
  close(): Promise<void>;
}

/** How long a query waits for a PostgreSQL connection before it fails (instead of the TCP timeout). */
export const PG_CONNECT_TIMEOUT_MS = 5000;

/**
 * A PostgreSQL pool as the server uses it: a connection attempt fails after PG_CONNECT_TIMEOUT_MS
 * (an unreachable database answers 500/503 at once instead of after minutes), and an error on an
 * idle client (a database restart or failover) is logged rather than left unhandled, which would
 * end the process; the pool replaces the client on the next query.
 */
export function createPgPool(connectionString: string, options: { max: number; allowExitOnIdle?: boolean }): pg.Pool {
  const pool = new pg.Pool({ connectionString, connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS, ...options });
  pool.on('error', (e) => console.error(`postgres: an idle connection failed (${e.message}); it will be replaced`));
  return pool;
}

export function openDatabase(options: { databaseUrl?: string; dataDir: string }): OpenedDatabase {
  const url = options.databaseUrl;
  if (url && /^postgres(ql)?:\/\//.test(url)) {
    const pool = createPgPool(url, { max: 10 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  if (url) throw new Error(`DATABASE_URL must start with postgres:// (got ${url.split(':')[0]}:)`);
  ensurePrivateDir(options.dataDir);
  const file = join(options.dataDir, 'mango.sqlite');
  ensurePrivateFile(file);
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

export async function migrateToLatest(opened: OpenedDatabase): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(opened.dialect) };
  const migrator = new Migrator({ db: opened.db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String(error)}`);
  }
}

/** Current time as the ISO string stored in timestamp columns. */
export const now = () => new Date().toISOString();

/** True for a unique-constraint violation on either database (a concurrent insert won the race). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
