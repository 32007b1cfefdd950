import type { Db } from './db.js';

export interface LoginStateRow {
  state: string;
  provider: string;
  code_verifier: string;
  nonce: string;
  redirect_uri: string;
  expires_at: Date;
}

export interface LoginCodeRow {
  code_hash: string;
  user_id: string;
  provider: string;
  redirect_uri: string;
  expires_at: Date;
}

export interface UserRow {
  id: string;
  organization_id: string;
  email: string;
  name: string;
  role: 'admin' | 'member';
  provider: string;
  created_at: Date;
  last_login_at: Date | null;
}

/** Abandoned sign-ins leave rows behind; each new one sweeps the expired ones. */
export async function insertLoginState(db: Db, row: LoginStateRow): Promise<void> {
  await db('login_states').where('expires_at', '<', db.fn.now()).delete();
  await db('login_states').insert(row);
}

/** Deleting while reading makes a state single-use even when two callbacks race. */
export async function takeLoginState(db: Db, state: string): Promise<LoginStateRow | undefined> {
  const [row] = await db('login_states').where({ state }).delete().returning('*');
  return row;
}

export async function insertLoginCode(db: Db, row: LoginCodeRow): Promise<void> {
  await db('login_codes').where('expires_at', '<', db.fn.now()).delete();
  await db('login_codes').insert(row);
}

export async function takeLoginCode(db: Db, codeHash: string): Promise<LoginCodeRow | undefined> {
  const [row] = await db('login_codes').where({ code_hash: codeHash }).delete().returning('*');
  return row;
}

export async function findUser(db: Db, id: string): Promise<UserRow | undefined> {
  return db('users').where({ id }).first();
}

/**
 * The user with this email, created when new. The organization row is locked first so that two
 * first sign-ins at once cannot both become its admin, nor one email be inserted twice.
 */
export async function signInUser(db: Db, user: Pick<UserRow, 'id' | 'organization_id' | 'email' | 'name' | 'provider'>): Promise<UserRow> {
  return db.transaction(async (trx) => {
    await trx('organizations').where({ id: user.organization_id }).forUpdate().first('id');
    const existing = await trx('users').where({ email: user.email }).update({ last_login_at: trx.fn.now() }).returning('*');
    if (existing.length > 0) return existing[0];
    const others = await trx('users').where({ organization_id: user.organization_id }).first('id');
    const [created] = await trx('users')
      .insert({ ...user, role: others ? 'member' : 'admin', last_login_at: trx.fn.now() })
      .returning('*');
    return created;
  });
}
