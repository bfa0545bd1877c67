// check.mjs: ask DuckDB about a Parquet file sift rewrote (interop's
// TestAttachFilters): its row count, and for each given value of a column
// which row groups' Bloom filters exclude it (parquet_bloom_probe).
//
// Usage: node check.mjs <file> <column> <SQL literal>...
// Prints JSON: {"rows": N, "excludes": [[bool per row group] per value]}.

import { DuckDBInstance } from '@duckdb/node-api';

const [file, column, ...literals] = process.argv.slice(2);
if (!file || !column) {
  console.error('usage: node check.mjs <file> <column> <SQL literal>...');
  process.exit(2);
}
const db = await (await DuckDBInstance.create(':memory:')).connect();
const rows = Number((await db.runAndReadAll(`SELECT count(*) FROM read_parquet('${file}')`)).getRows()[0][0]);
const excludes = [];
for (const lit of literals) {
  const r = (await db.runAndReadAll(`SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe('${file}', '${column}', ${lit}) ORDER BY row_group_id`)).getRows();
  excludes.push(r.map(([, ex]) => ex));
}
console.log(JSON.stringify({ rows, excludes }));
