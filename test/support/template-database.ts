import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createDb } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';

/**
 * Test databases are clones of one migrated template per server, so a test file pays for
 * `CREATE DATABASE ... TEMPLATE` (a file copy) instead of running every migration again.
 *
 * The template's name carries a hash of the store code that defines the schema, so a changed
 * migration gets a new template on a long-lived server (KILN_TEST_DATABASE_URL) instead of a
 * stale one. A Postgres advisory lock makes the first process build it while the others wait,
 * whichever process or host they run on.
 */

const templates = new Map<string, Promise<string>>();

/** Creates database `name` on the server of `adminUrl` as a copy of the migrated template. */
export async function cloneTemplate(adminUrl: string, name: string): Promise<void> {
  let template = templates.get(adminUrl);
  if (!template) {
    template = ensureTemplate(adminUrl);
    templates.set(adminUrl, template);
    template.catch(() => templates.delete(adminUrl));
  }
  const source = await template;
  await withClient(adminUrl, (client) => client.query(`create database ${name} template ${source}`));
}

/** `url` with its database replaced by `name`. */
export function databaseUrl(url: string, name: string): string {
  const next = new URL(url);
  next.pathname = `/${name}`;
  return next.toString();
}

async function ensureTemplate(adminUrl: string): Promise<string> {
  const template = `kiln_template_${schemaHash().slice(0, 16)}`;
  return withClient(adminUrl, async (client) => {
    // advisory locks are per database: every process locks on the admin URL's database
    await client.query('select pg_advisory_lock(hashtext($1))', ['kiln-test-template']);
    const { rows } = await client.query<{ datname: string }>("select datname from pg_database where datname like 'kiln_template_%'");
    const names = rows.map((row) => row.datname);
    if (names.includes(template)) return template;
    // a build interrupted half way leaves its scratch database behind
    for (const name of names.filter((n) => n.startsWith(`${template}_build_`))) await client.query(`drop database if exists ${name}`);
    const scratch = `${template}_build_${process.pid}`;
    await client.query(`create database ${scratch}`);
    const db = createDb({ url: databaseUrl(adminUrl, scratch), maxConnections: 1 });
    try {
      await migrate(db);
    } finally {
      await db.destroy();
    }
    // the rename is what marks the template complete
    await client.query(`alter database ${scratch} rename to ${template}`);
    return template;
  });
}

/** Hash of the compiled store code next to this file: migrations and what they import. */
function schemaHash(): string {
  const store = fileURLToPath(new URL('../../src/store/', import.meta.url));
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(js|ts)$/.test(entry.name)) hash.update(entry.name).update(readFileSync(path));
    }
  };
  walk(store);
  return hash.digest('hex');
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
