/** Table types for Kysely. Timestamps are ISO-8601 strings in UTC on both SQLite and PostgreSQL. */
import type { Generated } from 'kysely';

export interface UsersTable {
  id: Generated<number>;
  username: string;
  /** lower-cased */
  email: string;
  organization: string;
  password_hash: string;
  name: string;
  phone: string;
  country: string;
  created_at: string;
  /** access tokens carry it as `ver`; a password change increments it, refusing older tokens */
  token_version: Generated<number>;
}

export interface RefreshTokensTable {
  id: Generated<number>;
  user_id: number;
  /** sha256 of the token; the token itself is never stored */
  token_hash: string;
  expires_at: string;
  revoked_at: string | null;
  created_at: string;
  /** one sign-in's chain of rotated tokens; null only for rows from before migration 0002 */
  family: string | null;
}

export interface ActionsTable {
  id: Generated<number>;
  user_id: number;
  operation_type: string;
  created_at: string;
  /** the partner API key that made the call, null for calls from the web app */
  api_key_id: number | null;
  /** the stored run this operation made (web app calls send it; see runs) */
  run_id: Generated<string | null>;
}

export interface ApiKeysTable {
  id: Generated<number>;
  user_id: number;
  organization: string;
  name: string;
  /** the first characters of the key, shown in lists so the owner can tell keys apart */
  prefix: string;
  /** sha256 of the key; the key itself is shown once and never stored */
  key_hash: string;
  /** JSON array of origins (scheme://host[:port]) that may call with this key from a browser */
  allowed_origins: Generated<string>;
  rate_limit_per_minute: number;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  /** 'browser': only from an allowed Origin; 'server': only without an Origin (migration 0007) */
  kind: Generated<ApiKeyKind>;
}

export type ApiKeyKind = 'browser' | 'server';

/** A password-recovery attempt: a 6-digit code (hashed), then a single-use reset token (hashed). */
export interface PasswordResetsTable {
  id: Generated<number>;
  user_id: number;
  /** HMAC-SHA256 of the code with the server key */
  code_hash: string;
  code_expires_at: string;
  attempts: Generated<number>;
  verified_at: string | null;
  /** sha256 of the reset token handed out after a correct code */
  reset_token_hash: string | null;
  reset_expires_at: string | null;
  used_at: string | null;
  created_at: string;
  /** keyed hash of the address that asked for the code (migration 0012; null on older rows) */
  requested_from: string | null;
  /** 1 when the owner asked: a signed-in session, or an address that signed in to the account */
  trusted: Generated<number>;
  /** wrong codes tried from addresses other than the owner's (`attempts` counts the owner's) */
  other_attempts: Generated<number>;
}

/** A requested change of a user's e-mail: applied only once the code mailed to new_email is entered. */
export interface EmailChangesTable {
  id: Generated<number>;
  user_id: number;
  /** lower-cased */
  new_email: string;
  /** HMAC-SHA256 of the code (with the new address) under the server key */
  code_hash: string;
  expires_at: string;
  attempts: Generated<number>;
  used_at: string | null;
  created_at: string;
}

/** A stored run: one bruise or feature analysis call through the API, with its provenance. */
export interface RunsTable {
  /** random UUID */
  id: string;
  user_id: number;
  organization: string;
  /** 'bruise' | 'analyze' */
  operation: string;
  /** the method asked for (bruise), null for analyze */
  method: string | null;
  /** the method that ran ('classical' | 'model') */
  method_used: string | null;
  plugin_version: string | null;
  model_id: string | null;
  model_sha256: string | null;
  /** JSON object: the plugin options of the call */
  options: string;
  app_version: string;
  /** the partner key of a server-side key call, null for the web app */
  api_key_id: number | null;
  item_count: number;
  /** JSON: the declared summary for the list (bruise runs: { n, mean_bruise_percent, max_bruise_percent }) */
  summary: string;
  created_at: string;
  /** JSON: where the photos' experiment metadata came from (core MetaProvenance), null when none (migration 0014) */
  meta: string | null;
  /** the run this one re-scored with another model (POST /runs/{id}/rescore), null otherwise (migration 0019) */
  rescored_from: string | null;
}

/** One photo of a run. */
export interface RunItemsTable {
  id: Generated<number>;
  run_id: string;
  /** order of upload, from 0 */
  position: number;
  /** the uploaded file name, sanitised */
  filename: string;
  /** sha256 of the uploaded bytes (hex) */
  sha256: string;
  width: number | null;
  height: number | null;
  /** JSON: the result its plugin's run declaration stores (core/src/runs.ts storedResult), or the photo's error */
  result: string;
  /** data:image/jpeg;base64 thumbnail (long side <= 256) of the declared overlay image (or output), else null */
  overlay: string | null;
  /** data:image/jpeg;base64 thumbnail of the uploaded photo (long side <= 256) when its run kind keeps one */
  photo: string | null;
  /** the declared overlay image as its plugin encoded it (full size), when the job kept it (`keep_overlays`) */
  overlay_image: Uint8Array | null;
  /** its media type (image/jpeg or image/png) */
  overlay_image_type: string | null;
}

/** A photo a stored run keeps (KEEP_RUN_PHOTOS; runs/photos.ts), as it was uploaded. */
export interface RunPhotosTable {
  run_id: string;
  /** the item's position */
  position: number;
  /** bytes */
  size: number;
  /** media type read from the bytes (image/jpeg, image/png, ...) */
  type: string;
  /** the bytes, when kept in the database (PostgreSQL); null: in DATA_DIR/run-photos (SQLite) */
  data: Uint8Array | null;
}

/** One version of a stored run's photo's truth (the mask editor's Save, or an import). */
export interface PhotoTruthsTable {
  id: Generated<number>;
  run_id: string;
  /** the item's position */
  position: number;
  /** 1, 2, ...: the latest is in force */
  version: number;
  /** the masks' size: the photo's */
  width: number;
  height: number;
  /** COCO RLE `counts` strings (column-major, as pycocotools) of the fruit and bruise masks */
  fruit_rle: string;
  bruise_rle: string;
  /** JSON: the photo's figures with these masks (the run's `correct`), the model's beside them */
  result: string;
  /** the model whose masks the person started from (null: classical) */
  model_id: string | null;
  /** `editor` or the import's format (`coco`, `cvat-mask`, `label-studio`) */
  source: string;
  /**
   * data:image/jpeg;base64 overlay (long side <= 256) of these masks, drawn as the model's overlay
   * (the run's `correctedOverlay`): shown in place of the model's while in force; null when none (migration 0020)
   */
  overlay_thumbnail: string | null;
  /**
   * What the backfill (runs/overlay-backfill.ts, migration 0021) made of a version saved without an
   * overlay: null (not looked at, or saved with one), `claimed:<time>:<instance>`, `drawn`,
   * `photo-not-kept`, `not-drawn`, `failed: <reason>`
   */
  overlay_backfill: string | null;
  created_by: number;
  created_at: string;
}

/** A batch job (POST /api-node/jobs). */
export interface JobsTable {
  /** random UUID */
  id: string;
  user_id: number;
  organization: string;
  api_key_id: number | null;
  /** 'bruise' | 'features' */
  operation: string;
  /** JSON object: the plugin options */
  options: string;
  /** 'queued' | 'running' | 'done' | 'failed' | 'cancelled' */
  state: string;
  total: number;
  done: Generated<number>;
  failed: Generated<number>;
  /** 1: each photo's item keeps the full-size overlay (run_items.overlay_image) */
  keep_overlays: Generated<number>;
  /** the models the job was given when it was made (JSON manifest entries: ids and sha256), null: the ones in force */
  models: string | null;
  /** the stored run its results land in */
  run_id: string | null;
  /** why the job itself could not run (state 'failed') */
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** A photo of a job, until the job ends. */
export interface JobFilesTable {
  job_id: string;
  position: number;
  /** the sent name, sanitised */
  name: string;
  size: number;
  /** the bytes, when kept in the database (null: in the job file directory) */
  data: Uint8Array | null;
  /** JSON: the photo's experiment metadata (name -> value), null when the job has none (migration 0014) */
  meta: string | null;
  /** a re-scoring job's photo: the run whose kept photo it is (read from there, not copied; migration 0019) */
  source_run_id: string | null;
  /** ... and its position in that run */
  source_position: number | null;
}

/** Addresses that signed in to an account (security/login-throttle.ts); at most 32 per account. */
export interface LoginKnownAddressesTable {
  /** HMAC of the sign-in throttle's account name */
  account: string;
  /** HMAC of the client address */
  address: string;
  last_seen: string;
}

/** A model version of the registry (models/registry.ts); the shipped models are not rows. */
export interface ModelVersionsTable {
  id: string;
  task: string;
  sha256: string;
  /** the version it was fine-tuned from (null: trained from scratch) */
  base_id: string | null;
  /** its manifest entry (JSON; `file` is relative to the registry's folder) */
  entry: string;
  /** its model card (Markdown) */
  card: string | null;
  /** its evaluation on held-out corrections beside the model then in use (JSON; the activation gate) */
  evaluation: string | null;
  created_at: string;
  created_by: string;
  /** the ONNX file (PostgreSQL); null on SQLite, where it is DATA_DIR/models/<id>.onnx */
  data: Uint8Array | null;
}

export interface ModelActivationsTable {
  id: Generated<number>;
  task: string;
  model_id: string;
  /** 'activate' or 'rollback' */
  action: string;
  /** 1 when `--force` overrode the gate */
  forced: Generated<number>;
  /** the gate's figures (JSON) */
  gate: string | null;
  activated_at: string;
  activated_by: string;
}

export interface Database {
  model_versions: ModelVersionsTable;
  model_activations: ModelActivationsTable;
  jobs: JobsTable;
  job_files: JobFilesTable;
  runs: RunsTable;
  run_items: RunItemsTable;
  run_photos: RunPhotosTable;
  photo_truths: PhotoTruthsTable;
  users: UsersTable;
  refresh_tokens: RefreshTokensTable;
  actions: ActionsTable;
  api_keys: ApiKeysTable;
  password_resets: PasswordResetsTable;
  email_changes: EmailChangesTable;
  login_known_addresses: LoginKnownAddressesTable;
}
