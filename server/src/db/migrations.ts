/**
 * Migrations, in order. The same migrations run on SQLite and PostgreSQL, so they use only portable
 * column types (integer/text) and Kysely's schema builder; `serial` vs autoincrement is the one
 * dialect difference. Append new migrations with the next number; never edit a published one.
 */
import { sql, type Kysely, type Migration } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

function idColumn(dialect: Dialect) {
  return dialect === 'postgres' ? ('serial' as const) : ('integer' as const);
}

export function migrations(dialect: Dialect): Record<string, Migration> {
  const id = idColumn(dialect);
  return {
    '0001_accounts': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('users')
          .addColumn('id', id, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('username', 'text', (c) => c.notNull().unique())
          .addColumn('email', 'text', (c) => c.notNull().unique())
          .addColumn('organization', 'text', (c) => c.notNull())
          .addColumn('password_hash', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('phone', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('country', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('refresh_tokens')
          .addColumn('id', id, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('token_hash', 'text', (c) => c.notNull().unique())
          .addColumn('expires_at', 'text', (c) => c.notNull())
          .addColumn('revoked_at', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('refresh_tokens_user').on('refresh_tokens').column('user_id').execute();
        await db.schema
          .createTable('actions')
          .addColumn('id', id, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('operation_type', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('actions_user').on('actions').columns(['user_id', 'created_at']).execute();
      },
    },
    '0002_security': {
      async up(db: Kysely<unknown>) {
        // Refresh tokens rotate within a family (one sign-in); reusing a revoked one revokes the family.
        await db.schema.alterTable('refresh_tokens').addColumn('family', 'text').execute();
        await db.schema.createIndex('refresh_tokens_family').on('refresh_tokens').column('family').execute();
        await db.schema
          .createTable('api_keys')
          .addColumn('id', id, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('organization', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('prefix', 'text', (c) => c.notNull())
          .addColumn('key_hash', 'text', (c) => c.notNull().unique())
          .addColumn('allowed_origins', 'text', (c) => c.notNull().defaultTo('[]'))
          .addColumn('rate_limit_per_minute', 'integer', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('revoked_at', 'text')
          .addColumn('last_used_at', 'text')
          .execute();
        await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute();
        // Which partner key made a call (null for calls from the web app).
        await db.schema.alterTable('actions').addColumn('api_key_id', 'integer').execute();
        await db.schema
          .createTable('password_resets')
          .addColumn('id', id, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('code_hash', 'text', (c) => c.notNull())
          .addColumn('code_expires_at', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('verified_at', 'text')
          .addColumn('reset_token_hash', 'text', (c) => c.unique())
          .addColumn('reset_expires_at', 'text')
          .addColumn('used_at', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();
      },
    },
    '0003_username_case': {
      async up(db: Kysely<unknown>) {
        // Usernames are unique regardless of case (sign-in compares them case-insensitively).
        await db.schema
          .createIndex('users_username_lower')
          .on('users')
          .unique()
          .expression(sql`lower(username)`)
          .execute();
      },
    },
    '0004_token_version': {
      async up(db: Kysely<unknown>) {
        // Access tokens carry the version they were issued under; a password change bumps it.
        await db.schema
          .alterTable('users')
          .addColumn('token_version', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
      },
    },
    '0005_email_changes': {
      async up(db: Kysely<unknown>) {
        // A new profile e-mail waits here until the code sent to it comes back.
        await db.schema
          .createTable('email_changes')
          .addColumn('id', id, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('new_email', 'text', (c) => c.notNull())
          .addColumn('code_hash', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('used_at', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('email_changes_user').on('email_changes').column('user_id').execute();
      },
    },
    '0007_api_key_kind': {
      async up(db: Kysely<unknown>) {
        // 'browser' keys need an allowed Origin, 'server' keys refuse one; existing keys become 'browser'.
        await db.schema
          .alterTable('api_keys')
          .addColumn('kind', 'text', (c) => c.notNull().defaultTo('browser'))
          .execute();
      },
    },
    '0008_runs': {
      async up(db: Kysely<unknown>) {
        // Stored runs (issue 12): a bruise or feature analysis done through the API, with its
        // provenance, and one row per photo. The id is a random UUID: it appears in URLs.
        await db.schema
          .createTable('runs')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('organization', 'text', (c) => c.notNull())
          .addColumn('operation', 'text', (c) => c.notNull())
          .addColumn('method', 'text')
          .addColumn('method_used', 'text')
          .addColumn('plugin_version', 'text')
          .addColumn('model_id', 'text')
          .addColumn('model_sha256', 'text')
          .addColumn('options', 'text', (c) => c.notNull())
          .addColumn('app_version', 'text', (c) => c.notNull())
          .addColumn('api_key_id', 'integer')
          .addColumn('item_count', 'integer', (c) => c.notNull())
          .addColumn('summary', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('runs_user').on('runs').columns(['user_id', 'created_at']).execute();
        await db.schema
          .createTable('run_items')
          .addColumn('id', id, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
          .addColumn('position', 'integer', (c) => c.notNull())
          .addColumn('filename', 'text', (c) => c.notNull())
          .addColumn('sha256', 'text', (c) => c.notNull())
          .addColumn('width', 'integer')
          .addColumn('height', 'integer')
          .addColumn('result', 'text', (c) => c.notNull())
          .addColumn('overlay', 'text')
          .addColumn('photo', 'text')
          .execute();
        await db.schema.createIndex('run_items_run').on('run_items').columns(['run_id', 'position']).execute();
        // The history row of the operation that made a run (POST /api-node/user/action {run_id}).
        await db.schema.alterTable('actions').addColumn('run_id', 'text').execute();
      },
    },
    '0009_jobs': {
      async up(db: Kysely<unknown>) {
        // Batch jobs (issue 14): one row per job, one per uploaded photo until the job ends. A photo's
        // bytes sit in `data` (PostgreSQL default: every worker reaches them) or in a directory.
        await db.schema
          .createTable('jobs')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('organization', 'text', (c) => c.notNull())
          .addColumn('api_key_id', 'integer')
          .addColumn('operation', 'text', (c) => c.notNull())
          .addColumn('options', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('total', 'integer', (c) => c.notNull())
          .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('run_id', 'text')
          .addColumn('error', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('jobs_state').on('jobs').columns(['state', 'created_at']).execute();
        await db.schema
          .createTable('job_files')
          .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
          .addColumn('position', 'integer', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('size', 'integer', (c) => c.notNull())
          .addColumn('data', dialect === 'postgres' ? 'bytea' : 'blob')
          .addPrimaryKeyConstraint('job_files_pk', ['job_id', 'position'])
          .execute();
        // Exactly one stored result per photo, however often a photo is retried.
        await db.schema
          .createIndex('run_items_run_position')
          .unique()
          .on('run_items')
          .columns(['run_id', 'position'])
          .execute();
      },
    },
    '0010_rate_limits': {
      async up(db: Kysely<unknown>) {
        // PostgreSQL: rate-limiter-flexible's table, so every instance counts the same hits
        // (security/shared-limits.ts). SQLite keeps its limits in memory (one process).
        if (dialect !== 'postgres') return;
        await db.schema
          .createTable('rate_limits')
          .ifNotExists()
          .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
          .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('expire', 'bigint')
          .execute();
      },
    },
    '0011_login_known_addresses': {
      async up(db: Kysely<unknown>) {
        // The addresses each account signed in from (security/login-throttle.ts), shared by the
        // instances: they are exempt from the account's looser limit of failures. Both as keyed hashes.
        await db.schema
          .createTable('login_known_addresses')
          .addColumn('account', 'text', (c) => c.notNull())
          .addColumn('address', 'text', (c) => c.notNull())
          .addColumn('last_seen', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('login_known_addresses_pk', ['account', 'address'])
          .execute();
      },
    },
    '0012_recovery_requesters': {
      async up(db: Kysely<unknown>) {
        // Recovery limits a stranger cannot use up (auth/recovery.ts): who asked for each code (a keyed
        // hash of the address), whether that was the owner (a signed-in session or an address that signed
        // in to the account), and the wrong codes tried by other addresses, apart from the requester's.
        await db.schema.alterTable('password_resets').addColumn('requested_from', 'text').execute();
        await db.schema
          .alterTable('password_resets')
          .addColumn('trusted', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema
          .alterTable('password_resets')
          .addColumn('other_attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
      },
    },
    '0013_full_overlays': {
      async up(db: Kysely<unknown>) {
        // A job may ask to keep each photo's overlay as its plugin encoded it (full size, not only the
        // 256 px thumbnail): the web app's large batches show it as /api-py's answer does. The bytes
        // sit with the photo's item, so they go with the run; null when not kept.
        await db.schema
          .alterTable('jobs')
          .addColumn('keep_overlays', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema
          .alterTable('run_items')
          .addColumn('overlay_image', dialect === 'postgres' ? 'bytea' : 'blob')
          .execute();
        await db.schema.alterTable('run_items').addColumn('overlay_image_type', 'text').execute();
      },
    },
    '0014_meta': {
      async up(db: Kysely<unknown>) {
        // Experiment metadata (issue 27): where a run's came from (JSON: pattern, the CSV's sha256,
        // the names), and each waiting job photo's (JSON object name -> value; a stored item keeps its
        // photo's in its result's `meta`). Null: none were given.
        await db.schema.alterTable('runs').addColumn('meta', 'text').execute();
        await db.schema.alterTable('job_files').addColumn('meta', 'text').execute();
      },
    },
    '0014_run_photos': {
      async up(db: Kysely<unknown>) {
        // Each stored run keeps its uploaded photos (KEEP_RUN_PHOTOS, runs/photos.ts), so it can be
        // exported at full resolution and corrected later. One row per kept photo: its size and media
        // type, and its bytes on PostgreSQL (every machine reaches them); on SQLite the bytes are a
        // file under DATA_DIR/run-photos/<run>/<position> and `data` is null. Deleted with the run.
        await db.schema
          .createTable('run_photos')
          .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
          .addColumn('position', 'integer', (c) => c.notNull())
          .addColumn('size', 'integer', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('data', dialect === 'postgres' ? 'bytea' : 'blob')
          .addPrimaryKeyConstraint('run_photos_pk', ['run_id', 'position'])
          .execute();
      },
    },
    '0016_model_registry': {
      async up(db: Kysely<unknown>) {
        // The model registry (models/registry.ts): versions trained here (the shipped models of
        // MODELS_DIR stay built in, outside the database), the activations in order (the last one per
        // task is in force; a rollback is one more), and the model a batch job was given when it was
        // made, so all its photos use one model. PostgreSQL keeps each version's file in `data`
        // (machines share nothing else); SQLite keeps it under DATA_DIR/models.
        await db.schema
          .createTable('model_versions')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('task', 'text', (c) => c.notNull())
          .addColumn('sha256', 'text', (c) => c.notNull())
          .addColumn('base_id', 'text')
          .addColumn('entry', 'text', (c) => c.notNull())
          .addColumn('card', 'text')
          .addColumn('evaluation', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('created_by', 'text', (c) => c.notNull())
          .addColumn('data', dialect === 'postgres' ? 'bytea' : 'blob')
          .execute();
        await db.schema
          .createTable('model_activations')
          .addColumn('id', id, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('task', 'text', (c) => c.notNull())
          .addColumn('model_id', 'text', (c) => c.notNull())
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('forced', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('gate', 'text')
          .addColumn('activated_at', 'text', (c) => c.notNull())
          .addColumn('activated_by', 'text', (c) => c.notNull())
          .execute();
        await db.schema.alterTable('jobs').addColumn('models', 'text').execute();
      },
    },
    '0018_photo_truths': {
      async up(db: Kysely<unknown>) {
        // The truth of a stored run's photo (issue 28): the masks a person corrected in the mask
        // editor (or imported), one version per save, never overwritten. The masks are COCO RLE
        // strings at the photo's size; `result` holds the figures they give (with the model's
        // beside them); `model_id` names the model whose masks the person started from.
        await db.schema
          .createTable('photo_truths')
          .addColumn('id', id, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
          .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
          .addColumn('position', 'integer', (c) => c.notNull())
          .addColumn('version', 'integer', (c) => c.notNull())
          .addColumn('width', 'integer', (c) => c.notNull())
          .addColumn('height', 'integer', (c) => c.notNull())
          .addColumn('fruit_rle', 'text', (c) => c.notNull())
          .addColumn('bruise_rle', 'text', (c) => c.notNull())
          .addColumn('result', 'text', (c) => c.notNull())
          .addColumn('model_id', 'text')
          .addColumn('source', 'text', (c) => c.notNull())
          .addColumn('created_by', 'integer', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addUniqueConstraint('photo_truths_version', ['run_id', 'position', 'version'])
          .execute();
      },
    },
    '0019_rescores': {
      async up(db: Kysely<unknown>) {
        // Re-scoring a stored run with another model (issue 28 item 4): the new run names the run it
        // was re-scored from (no foreign key: deleting either run leaves the other as it is), and a
        // job's photo may be a kept photo of a run (read from the run's photo store, not copied).
        await db.schema.alterTable('runs').addColumn('rescored_from', 'text').execute();
        await db.schema.createIndex('runs_rescored_from').on('runs').column('rescored_from').execute();
        await db.schema.alterTable('job_files').addColumn('source_run_id', 'text').execute();
        await db.schema.alterTable('job_files').addColumn('source_position', 'integer').execute();
      },
    },
    '0020_truth_overlays': {
      async up(db: Kysely<unknown>) {
        // The overlay of a truth version's corrected masks (issue 28): the 256 px JPEG data URL the
        // run shows, exports and reports in place of the model's overlay thumbnail while that
        // version is in force (the model's stays in run_items.overlay). Null: drawn by no plugin, or
        // saved before this column.
        await db.schema.alterTable('photo_truths').addColumn('overlay_thumbnail', 'text').execute();
      },
    },
    '0021_truth_overlay_backfill': {
      async up(db: Kysely<unknown>) {
        // The backfill of corrected overlays (issue 28; runs/overlay-backfill.ts): a truth version
        // saved before 0020 has no overlay_thumbnail; the server draws it once from the stored masks
        // and the kept photo. `overlay_backfill` says what became of it: null (not looked at),
        // `claimed:<time>:<instance>` (being drawn), `drawn`, `photo-not-kept` (the model's overlay
        // stays), `not-drawn` (its kind draws none), `failed: <reason>`. The partial index holds the
        // versions without an overlay only, so the startup scan is cheap once all are drawn.
        await db.schema.alterTable('photo_truths').addColumn('overlay_backfill', 'text').execute();
        await db.schema
          .createIndex('photo_truths_without_overlay')
          .on('photo_truths')
          .columns(['run_id', 'position', 'version'])
          .where(sql.ref('overlay_thumbnail'), 'is', null)
          .execute();
      },
    },
  };
}
