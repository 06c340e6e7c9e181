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
}

export interface RefreshTokensTable {
  id: Generated<number>;
  user_id: number;
  /** sha256 of the token; the token itself is never stored */
  token_hash: string;
  expires_at: string;
  revoked_at: string | null;
  created_at: string;
}

export interface ActionsTable {
  id: Generated<number>;
  user_id: number;
  operation_type: string;
  created_at: string;
}

export interface Database {
  users: UsersTable;
  refresh_tokens: RefreshTokensTable;
  actions: ActionsTable;
}
