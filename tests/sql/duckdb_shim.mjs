// A stand-in for the `duckdb` shell where only DuckDB's Node package is
// installed (tests/sql/package.json): reads SQL from standard input, runs
// each statement in the current directory on an in-memory database, and
// prints the last statement's rows, one JSON object a line. check_fleet.py
// puts it on PATH as `duckdb` to run docs/sql.md's fleet blocks as written.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';

const statements = readFileSync(0, 'utf8')
  .split(/;\s*\n/)
  .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
  .filter((s) => s.length);
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
let last = null;
for (const s of statements) last = await con.runAndReadAll(s);
if (last) for (const row of last.getRowObjectsJson()) console.log(JSON.stringify(row));
