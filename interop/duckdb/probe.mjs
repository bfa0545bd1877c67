// probe.mjs: write a Parquet file with Bloom filters with DuckDB and ask
// DuckDB's parquet_bloom_probe about known values, for sift's interop test
// (interop/duckdb_test.go), which recomputes every value from the same
// formulas.
//
// Usage: node probe.mjs <out dir> <row groups> <probes per column>
//
// The file <out dir>/duckdb.parquet has <row groups> row groups of 10240
// rows. Row r holds value index v = (r / 10240) * 2048 + r % 2048, so row
// group g holds the 2048 indexes g*2048 .. g*2048+2047, each five times
// (DuckDB writes Bloom filters for dictionary-encoded column chunks, and
// dictionary-encodes these). The columns, one per physical type:
//
//   i32 INTEGER  v                   i64 BIGINT  v*7
//   f32 FLOAT    v+0.5 (v=0: -0.0, v=1: NaN)
//   f64 DOUBLE   v+0.25 (v=0: -0.0, v=1: NaN)
//   ba  VARCHAR  'value-' || v       fl  UUID (FIXED_LEN_BYTE_ARRAY(16)): md5(v as decimal text)
//
// <out dir>/probes.json lists, for each column, probe value indexes (half
// of them present in some row group, half absent from all, and the
// specials +0.0 and -0.0) and for each the row groups whose filter
// excludes it.

import { DuckDBInstance } from '@duckdb/node-api';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [outDir, groupsArg, probesArg] = process.argv.slice(2);
const groups = Number(groupsArg), probes = Number(probesArg);
if (!outDir || !(groups > 0) || !(probes > 0)) {
  console.error('usage: node probe.mjs <out dir> <row groups> <probes per column>');
  process.exit(2);
}
const file = join(outDir, 'duckdb.parquet');
const perGroup = 2048;
const total = groups * perGroup;

const inst = await DuckDBInstance.create(':memory:');
const db = await inst.connect();
await db.run('SET threads = 1');
await db.run(`COPY (
  SELECT v::INTEGER AS i32, (v * 7)::BIGINT AS i64,
    CASE v WHEN 0 THEN '-0.0'::FLOAT WHEN 1 THEN 'NaN'::FLOAT ELSE (v + 0.5)::FLOAT END AS f32,
    CASE v WHEN 0 THEN '-0.0'::DOUBLE WHEN 1 THEN 'NaN'::DOUBLE ELSE (v + 0.25)::DOUBLE END AS f64,
    'value-' || v::VARCHAR AS ba, md5(v::VARCHAR)::UUID AS fl
  FROM (SELECT (i // 10240) * ${perGroup} + i % ${perGroup} AS v FROM range(${groups * 10240}) t(i))
) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 10240)`);

// literal returns the SQL literal of value index v in column col; v = -1
// stands for +0.0 in the float columns.
function literal(col, v) {
  switch (col) {
    case 'i32': return `${v}::INTEGER`;
    case 'i64': return `${v * 7}::BIGINT`;
    case 'f32': return v === -1 ? `'0.0'::FLOAT` : v === 0 ? `'-0.0'::FLOAT` : v === 1 ? `'NaN'::FLOAT` : `${v + 0.5}::FLOAT`;
    case 'f64': return v === -1 ? `'0.0'::DOUBLE` : v === 0 ? `'-0.0'::DOUBLE` : v === 1 ? `'NaN'::DOUBLE` : `${v + 0.25}::DOUBLE`;
    case 'ba': return `'value-${v}'`;
    case 'fl': {
      const h = createHash('md5').update(String(v)).digest('hex');
      return `'${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}'::UUID`;
    }
  }
  throw new Error(col);
}

// A deterministic generator (xorshift32), so runs are reproducible.
let state = 0x9e3779b9;
function next() {
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state;
}

const result = { file: 'duckdb.parquet', groups, perGroup, columns: {} };
const batch = 400; // probes per query (UNION ALL)
for (const col of ['i32', 'i64', 'f32', 'f64', 'ba', 'fl']) {
  const values = [0, 1];
  if (col === 'f32' || col === 'f64') values.push(-1);
  while (values.length < probes) {
    values.push(values.length % 2 === 0 ? next() % total : total + next() % (total * 4));
  }
  const excludes = values.map(() => new Array(groups).fill(null));
  for (let lo = 0; lo < values.length; lo += batch) {
    const parts = [];
    for (let k = lo; k < Math.min(lo + batch, values.length); k++) {
      parts.push(`SELECT ${k} AS k, row_group_id, bloom_filter_excludes FROM parquet_bloom_probe('${file}', '${col}', ${literal(col, values[k])})`);
    }
    const rows = (await db.runAndReadAll(parts.join(' UNION ALL '))).getRows();
    for (const [k, rg, ex] of rows) excludes[Number(k)][Number(rg)] = ex;
  }
  result.columns[col] = { values, excludes };
}
const version = (await db.runAndReadAll('SELECT version()')).getRows()[0][0];
result.duckdb = version;
writeFileSync(join(outDir, 'probes.json'), JSON.stringify(result));
console.log(`duckdb ${version}: ${groups} row groups, ${probes} probes per column`);
