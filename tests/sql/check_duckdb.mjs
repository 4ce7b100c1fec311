// Reads an export of ludus-trace convert (--format csv or jsonl) with DuckDB,
// an engine other than SQLite: its schema.sql, then load-duckdb.sql, run in
// the directory; prints what check_sql.py compares with ludus-trace sql.
//   node check_duckdb.mjs DIR
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const statements = (file) =>
  readFileSync(join(dir, file), 'utf8')
    .split(/;\s*\n/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length);
process.chdir(dir);
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
for (const s of [...statements('schema.sql'), ...statements('load-duckdb.sql')]) await con.run(s);
const rows = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();
const out = {
  slices: await rows('SELECT count(*) AS n, sum(dur) AS dur FROM slice'),
  names: (await rows('SELECT DISTINCT name FROM slice ORDER BY name')).map((r) => r.name),
  threads: (await rows('SELECT name FROM thread ORDER BY utid')).map((r) => r.name),
  messages: (await rows('SELECT msg FROM log ORDER BY ts')).map((r) => r.msg),
  args: (await rows("SELECT string_value FROM args WHERE value_type = 'string' ORDER BY arg_set_id, key")).map(
    (r) => r.string_value),
  flows: await rows('SELECT count(*) AS n FROM flow'),
  lock_waits: await rows('SELECT count(*) AS n FROM lock_wait'),
  null_parents: await rows('SELECT count(*) AS n FROM slice WHERE parent_id IS NULL'),
};
console.log(JSON.stringify(out));
