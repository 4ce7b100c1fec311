#!/usr/bin/env node
// Loads a Ludus Chrome JSON trace into three third-party viewers and checks
// that each one parsed what the capture holds: slices per thread (with their
// start, duration and name), nesting depth, and flows.
//
//   node tests/viewers/check-viewers.mjs TRACE.json [--only=trace_engine,speedscope,devtools] [--strict-order]
//
// Exit status: 0 when every viewer agrees with the capture, 1 when one
// rejects the trace, draws it differently, or fails to run; 2 on bad usage.
// See docs/viewers.md.
import fs from 'node:fs';
import {computeExpected, devtoolsTrackOrder, FIBER_TID_BASE, usToNs, wantedTrackOrder} from './expected.mjs';
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
    run: async (file, trace, opts, expected) => {
      const r = await runDevTools(file, opts);
      if (!r.error) r.checks = devtoolsOrderChecks(expected, r.trackOrder, opts.strictOrder);
      return r;
    },
  },
};

// The order of DevTools' thread tracks. DevTools has no notion of
// thread_sort_index: it sorts a generic trace's threads by their number of
// entries, most first (docs/viewers.md). Checked: that the drawn order is the
// one that rule gives (so the documented rule still holds), and that the
// capture's first thread (sort index 0, "Main" in the demo) comes first, the
// track DevTools shows at the top. The rest of the capture order (workers by
// thread index, each thread's span lanes after it) is reported; it fails
// only with --strict-order, as no JSON field can ask DevTools for it.
function devtoolsOrderChecks(expected, drawn, strict) {
  const name = tid => expected.threads.get(tid)?.name ?? String(tid);
  const show = tids => tids.map(name).join(', ');
  const predicted = devtoolsTrackOrder(expected).filter(t => drawn.includes(t));
  const wanted = wantedTrackOrder(expected).filter(t => drawn.includes(t));
  const checks = [];
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  checks.push(same(drawn, predicted)
    ? {ok: true, line: `track order: ${show(drawn)} (DevTools' rule: most entries first)`}
    : {ok: false, line: `track order: drawn ${show(drawn)}; DevTools' rule (most entries first) gives ${show(predicted)}: the rule in docs/viewers.md no longer holds`});
  if (wanted.length && drawn.length) {
    checks.push(drawn[0] === wanted[0]
      ? {ok: true, line: `first track: ${name(drawn[0])}, the capture's first thread`}
      : {ok: false, line: `first track: ${name(drawn[0])}, not the capture's first thread ${name(wanted[0])} (it has fewer entries)`});
  }
  if (!same(drawn, wanted)) {
    checks.push({
      ok: !strict,
      line: `${strict ? '' : 'known: '}track order differs from thread_sort_index (${show(wanted)}); DevTools ignores it`,
    });
  }
  return checks;
}

function usage(msg) {
  console.error(`check-viewers: ${msg}`);
  console.error('usage: node tests/viewers/check-viewers.mjs TRACE.json [--only=trace_engine,speedscope,devtools] [--strict-order]');
  process.exit(2);
}

async function withTimeout(name, fn, extra = {}) {
  const cleanups = [];
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${VIEWER_TIMEOUT_MS / 1000} s`)), VIEWER_TIMEOUT_MS);
  });
  try {
    return await Promise.race([fn({...extra, timeoutMs: VIEWER_TIMEOUT_MS - 10000, register: c => cleanups.push(c)}), timeout]);
  } catch (e) {
    return {viewer: name, error: String(e?.message ?? e).split('\n').slice(0, 4).join(' | ')};
  } finally {
    clearTimeout(timer);
    for (const c of cleanups) await c().catch(() => {});
  }
}

// speedscope turns each X into a B and an E with the X's name and args, and
// at equal ts opens a B before it closes an E when both have the same name and
// args (it takes that for one zero-length slice): two same-name siblings that
// touch are drawn as one slice (speedscope src/import/trace-event.ts,
// selectQueueToTakeFromNext).
function speedscopeHint(expected, trace) {
  const unnamedEnds = trace.traceEvents.filter(e => e.ph === 'E' && e.name === undefined).length;
  if (unnamedEnds) {
    return `${unnamedEnds} E events carry no "name": speedscope ignores an E whose name differs from the open B ` +
      '("Tried to end (unnamed)"), so nothing is ever closed (docs/viewers.md)';
  }
  const key = e => `${e.pid}|${e.tid}|${e.name ?? '(unnamed)'}${e.args ? ` ${JSON.stringify(e.args)}` : ''}`;
  const ends = new Map();
  const xs = trace.traceEvents.filter(e => e.ph === 'X' && Number(e.dur ?? 0) > 0);
  for (const e of xs) {
    const k = `${key(e)}@${Number(e.ts) + Number(e.dur)}`;  // as speedscope adds them
    ends.set(k, (ends.get(k) ?? 0) + 1);
  }
  let touching = 0;
  for (const e of xs) touching += ends.get(`${key(e)}@${Number(e.ts)}`) ?? 0;
  return touching
    ? `the capture has ${touching} X slices that begin at the very ns a slice of the same name and args ends on their track; ` +
      'speedscope draws each such pair as one slice unless their args differ (docs/viewers.md)'
    : null;
}

// Lock waits (slices of category "lock"), log messages (instants of
// category "log"), async zones (slices on the async tracks' pseudo-threads)
// and fiber tracks, as the JSON holds them.
function timelineKinds(trace, expected) {
  const ev = trace.traceEvents;
  const asyncTracks = [...expected.threads.values()].filter(t => t.isAsync);
  return {
    locks: ev.filter(e => e.ph === 'X' && e.cat === 'lock').length,
    messages: ev.filter(e => (e.ph === 'I' || e.ph === 'i') && e.cat === 'log').length,
    async: asyncTracks.reduce((n, t) => n + t.slices.length, 0),
    asyncTracks: asyncTracks.length,
    fibers: [...expected.threads.values()].filter(t => t.tid >= FIBER_TID_BASE).length,
  };
}

async function main() {
  const args = process.argv.slice(2);
  const file = args.find(a => !a.startsWith('--'));
  if (!file) usage('no trace file given');
  const only = args.find(a => a.startsWith('--only='))?.slice('--only='.length).split(',').filter(Boolean);
  for (const v of only ?? []) if (!VIEWERS[v]) usage(`unknown viewer ${v}`);
  const strictOrder = args.includes('--strict-order');
  const requireTimeline = args.includes('--require-timeline');
  for (const a of args)
    if (a.startsWith('--') && !a.startsWith('--only=') && a !== '--strict-order' && a !== '--require-timeline') usage(`unknown option ${a}`);
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
  const lanes = [...expected.threads.values()].filter(t => t.isLane).length;
  console.log(`capture ${file}: ${expected.threads.size - lanes} threads, ${lanes} span lane tracks, ${nSlices} slices, ` +
    `${expected.flows.length} flows, ${expected.losses.length} loss markers`);
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
  // The rest of the timeline (lock waits, log messages, async zones) are
  // slices and instants like any other, so the per-track comparison below
  // checks each viewer draws them; this says how many there are, and with
  // --require-timeline fails when the capture has no message or async zone
  // (a demo that lost them would pass vacuously). Lock waits depend on
  // contention, so their number is only reported.
  const timeline = timelineKinds(trace, expected);
  console.log(`   timeline: ${timeline.locks} lock waits, ${timeline.messages} log messages, ` +
    `${timeline.async} async zones on ${timeline.asyncTracks} async track(s), ${timeline.fibers} fiber track(s)`);
  if (requireTimeline && (!timeline.messages || !timeline.async)) {
    ok = false;
    console.log('   FAIL: --require-timeline: the capture has no log message or no async zone');
  }

  for (const name of names) {
    const v = VIEWERS[name];
    const started = Date.now();
    const result = await withTimeout(name, opts => v.run(file, trace, opts, expected), {strictOrder});
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
