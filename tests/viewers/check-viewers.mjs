#!/usr/bin/env node
// Loads a Ludus Chrome JSON trace into three third-party viewers and checks
// that each one parsed what the capture holds: slices per thread (with their
// start, duration and name), nesting depth, and flows.
//
//   node tests/viewers/check-viewers.mjs TRACE.json [--only=trace_engine,speedscope,devtools]
//
// Exit status: 0 when every viewer agrees with the capture, 1 when one
// rejects the trace, draws it differently, or fails to run; 2 on bad usage.
// See docs/viewers.md.
import fs from 'node:fs';
import {computeExpected} from './expected.mjs';
import {compareViewer} from './compare.mjs';
import {runTraceEngine} from './trace-engine.mjs';
import {runSpeedscope, speedscopeName} from './speedscope.mjs';
import {runDevTools} from './devtools.mjs';

const VIEWER_TIMEOUT_MS = 120000;

const VIEWERS = {
  trace_engine: {
    run: (file, trace) => runTraceEngine(trace),
  },
  speedscope: {
    run: (file, trace, opts) => runSpeedscope(file, opts),
    compare: {normalizeName: speedscopeName},
    hint: speedscopeHint,
  },
  devtools: {
    run: (file, trace, opts) => runDevTools(file, opts),
  },
};

function usage(msg) {
  console.error(`check-viewers: ${msg}`);
  console.error('usage: node tests/viewers/check-viewers.mjs TRACE.json [--only=trace_engine,speedscope,devtools]');
  process.exit(2);
}

async function withTimeout(name, fn) {
  const cleanups = [];
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${VIEWER_TIMEOUT_MS / 1000} s`)), VIEWER_TIMEOUT_MS);
  });
  try {
    return await Promise.race([fn({timeoutMs: VIEWER_TIMEOUT_MS - 10000, register: c => cleanups.push(c)}), timeout]);
  } catch (e) {
    return {viewer: name, error: String(e?.message ?? e).split('\n').slice(0, 4).join(' | ')};
  } finally {
    clearTimeout(timer);
    for (const c of cleanups) await c().catch(() => {});
  }
}

// speedscope opens a B before it closes an E when both are at the same ts and
// have the same name and args (it takes that for one zero-length slice), so
// two same-name siblings that touch are drawn as one slice.
function speedscopeHint(expected, trace) {
  const unnamedEnds = trace.traceEvents.filter(e => e.ph === 'E' && e.name === undefined).length;
  if (unnamedEnds) {
    return `${unnamedEnds} E events carry no "name": speedscope ignores an E whose name differs from the open B ` +
      '("Tried to end (unnamed)"), so nothing is ever closed (docs/viewers.md)';
  }
  let touching = 0;
  for (const t of expected.threads.values()) {
    const byEnd = new Map();
    for (const [s, d, n] of t.slices) byEnd.set(`${s + d}|${n}`, (byEnd.get(`${s + d}|${n}`) ?? 0) + 1);
    for (const [s, , n] of t.slices) touching += byEnd.get(`${s}|${n}`) ?? 0;
  }
  return touching
    ? `the capture has ${touching} pairs of same-name slices where one ends at the very ns the next begins; ` +
      'speedscope merges such pairs unless the E and the B differ in name or args (docs/viewers.md)'
    : null;
}

async function main() {
  const args = process.argv.slice(2);
  const file = args.find(a => !a.startsWith('--'));
  if (!file) usage('no trace file given');
  const only = args.find(a => a.startsWith('--only='))?.slice('--only='.length).split(',').filter(Boolean);
  for (const v of only ?? []) if (!VIEWERS[v]) usage(`unknown viewer ${v}`);
  const names = only ?? Object.keys(VIEWERS);

  let trace;
  try {
    trace = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    console.error(`check-viewers: cannot read ${file} as JSON: ${e.message}`);
    process.exit(1);
  }
  const expected = computeExpected(trace);
  let ok = true;
  const nSlices = [...expected.threads.values()].reduce((n, t) => n + t.slices.length, 0);
  console.log(`capture ${file}: ${expected.threads.size} threads, ${nSlices} slices, ${expected.flows.length} flows`);
  if (expected.problems.length) {
    ok = false;
    console.log(`   FAIL: the capture itself is malformed (${expected.problems.length} problems), first: ${expected.problems.slice(0, 3).join('; ')}`);
  }
  for (const t of trace.metadata?.threads ?? []) {
    if (t.events > 0 && !expected.threads.has(t.tid)) {
      ok = false;
      console.log(`   FAIL: metadata lists thread ${t.tid} (${t.name}) with ${t.events} events, the trace has none of its events`);
    }
  }
  if (!nSlices) {
    ok = false;
    console.log('   FAIL: the capture has no slices, nothing to compare');
  }

  for (const name of names) {
    const v = VIEWERS[name];
    const started = Date.now();
    const result = await withTimeout(name, opts => v.run(file, trace, opts));
    const {ok: viewerOk, lines} = compareViewer(expected, result, v.compare);
    lines[0] += ` [${((Date.now() - started) / 1000).toFixed(1)} s]`;
    if (result.error && /endsWith/.test(result.error) && trace.traceEvents.some(e => e.ph === 'E' && e.name === undefined)) {
      lines.splice(lines.length, 0, '   hint: the DevTools trace engine reads event.name.endsWith() on every event; ' +
        'an E event without "name" throws here (docs/viewers.md)');
    }
    if (!viewerOk && v.hint && !result.error) {
      const hint = v.hint(expected, trace);
      if (hint) lines.splice(lines.length - 1, 0, `   hint: ${hint}`);
    }
    console.log(lines.join('\n'));
    ok &&= viewerOk;
  }
  console.log(ok ? 'viewers: all agree with the capture' : 'viewers: MISMATCH (see FAIL/ERROR lines above)');
  process.exit(ok ? 0 : 1);
}

main().catch(e => {
  console.error(`check-viewers: ${e?.stack ?? e}`);
  process.exit(1);
});
