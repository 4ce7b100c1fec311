// Compares what one viewer parsed with the expected model and prints a table.
//
// A viewer result is
//   {viewer, error?, threads: [{tid, name, slices: [[startNs, durNs, name, level]], depth,
//      instants?: [[tsNs, name]]}],
//    relativeTime?: bool, flows?: [flowKey] | null, flowNote?: string, notes?: [string],
//    dropsZeroLength?: bool, showsInstants?: bool, instantNote?: string,
//    trackOrder?: [tid], checks?: [{ok, line}]}
// With relativeTime the viewer shows each thread's time from its own first
// slice, so starts are aligned on the first slice before they are compared.
// level is the row a slice is drawn in within its track (1 = top level).

import {flowKey} from './expected.mjs';

const MAX_EXAMPLES = 3;

function multiset(slices, offsetNs) {
  const m = new Map();
  for (const [s, d, n] of slices) {
    const k = `${s + offsetNs}|${d}|${n}`;
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

function diff(a, b) {
  // entries of a not in b (with multiplicity)
  const out = [];
  for (const [k, n] of a) {
    const extra = n - (b.get(k) ?? 0);
    for (let i = 0; i < extra; i++) out.push(k);
  }
  return out;
}

function fmtSlice(k) {
  const [s, d, n] = k.split('|');
  return `"${n}" ts=${(Number(s) / 1000).toFixed(3)}us dur=${(Number(d) / 1000).toFixed(3)}us`;
}

/** "startNs|durNs" -> sorted levels, for slices of non-zero duration. */
function levelsByInterval(slices, offsetNs) {
  const m = new Map();
  for (const [s, d, level] of slices) {
    if (d === 0) continue;
    const k = `${s + offsetNs}|${d}`;
    if (!m.has(k)) m.set(k, []);
    m.get(k).push(level);
  }
  for (const v of m.values()) v.sort((a, b) => a - b);
  return m;
}

function pad(s, n) {
  s = String(s);
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** Returns {ok, lines}. */
export function compareViewer(expected, result, {normalizeName = n => n} = {}) {
  const lines = [];
  const failures = [];
  lines.push(`== ${result.viewer}`);
  if (result.error) {
    lines.push(`   ERROR: ${result.error}`);
    for (const n of result.notes ?? []) lines.push(`   note: ${n}`);
    return {ok: false, lines};
  }
  const parsedByTid = new Map(result.threads.map(t => [t.tid, t]));
  const header = `   ${pad('thread', 22)} ${pad('exp slices', 10)} ${pad('parsed', 8)} ${pad('exp depth', 9)} ${pad('parsed', 6)}  timing/name`;
  lines.push(header);
  const details = [];
  let hinted = false;
  for (const exp of expected.threads.values()) {
    if (!exp.slices.length) continue;
    const got = parsedByTid.get(exp.tid);
    parsedByTid.delete(exp.tid);
    const label = `${exp.name ?? '?'} (${exp.tid})`;
    if (!got) {
      lines.push(`   ${pad(label, 22)} ${pad(exp.slices.length, 10)} ${pad('-', 8)} ${pad(exp.depth, 9)} ${pad('-', 6)}  thread missing`);
      failures.push(`${label}: thread missing`);
      continue;
    }
    const gotSlices = got.slices.map(([s, d, n]) => [s, d, normalizeName(n)]);
    let offset = 0;
    if (result.relativeTime && gotSlices.length) {
      offset = Math.min(...exp.slices.map(s => s[0])) - Math.min(...gotSlices.map(s => s[0]));
    }
    const e = multiset(exp.slices, 0);
    const g = multiset(gotSlices, offset);
    let missing = diff(e, g);
    let extra = diff(g, e);
    // Zero-length slices (a scope that began and ended within one ns) follow
    // each viewer's drawing convention: speedscope leaves them out, DevTools
    // draws them at least 1 us wide. Both are accepted, at the same start and
    // name; anything else about them is still a mismatch.
    let zeroDropped = 0;
    missing = missing.filter(k => {
      const [s, d, n] = k.split('|');
      if (Number(d) !== 0) return true;
      const wide = extra.findIndex(x => {
        const [xs, xd, xn] = x.split('|');
        return xs === s && xn === n && Number(xd) > 0 && Number(xd) <= 1000;
      });
      if (wide >= 0) {
        extra.splice(wide, 1);
        return false;
      }
      if (result.dropsZeroLength) {
        zeroDropped++;
        return false;
      }
      return true;
    });
    const timing = missing.length || extra.length ? `${missing.length} not drawn as written, ${extra.length} unexpected` : 'ok';
    lines.push(`   ${pad(label, 22)} ${pad(exp.slices.length, 10)} ${pad(got.slices.length, 8)} ${pad(exp.depth, 9)} ${pad(got.depth, 6)}  ${timing}`);
    if (got.slices.length + zeroDropped !== exp.slices.length)
      failures.push(`${label}: ${got.slices.length} slices, expected ${exp.slices.length}`);
    if (zeroDropped) details.push(`   ${label}: ${zeroDropped} zero-length slice(s) not drawn (this viewer's convention)`);
    if (got.depth !== exp.depth) failures.push(`${label}: depth ${got.depth}, expected ${exp.depth}`);
    if (missing.length || extra.length) {
      failures.push(`${label}: ${missing.length} slices not found with their start/duration/name, ${extra.length} unexpected`);
      for (const k of missing.slice(0, MAX_EXAMPLES)) details.push(`   ${label} expected ${fmtSlice(k)}`);
      for (const k of extra.slice(0, MAX_EXAMPLES)) details.push(`   ${label} parsed   ${fmtSlice(k)}${offset ? ` (aligned by ${offset} ns)` : ''}`);
    }
    // Nesting, slice by slice: the row each slice is drawn in. Slices with the
    // same interval are interchangeable (their order is the viewer's choice);
    // zero-length ones follow the conventions above and are left out.
    if (got.slices.every(s => Number.isInteger(s[3]))) {
      const expLevels = levelsByInterval(exp.slices.map((s, i) => [s[0], s[1], exp.levels[i]]), 0);
      const gotLevels = levelsByInterval(got.slices.map(s => [s[0], s[1], s[3]]), offset);
      const wrong = [];
      for (const [k, levels] of expLevels) {
        const g = gotLevels.get(k);
        if (g && g.length === levels.length && g.join() !== levels.join()) {
          const [st, d] = k.split('|').map(Number);
          const names = exp.slices.filter(x => x[0] === st && x[1] === d).map(x => `"${x[2]}"`).join('/');
          wrong.push(`${names} ts=${(st / 1000).toFixed(3)}us dur=${(d / 1000).toFixed(3)}us: level ${g.join('/')}, expected ${levels.join('/')}`);
        }
      }
      if (wrong.length) {
        failures.push(`${label}: ${wrong.length} slices drawn at another nesting level`);
        for (const w of wrong.slice(0, MAX_EXAMPLES)) details.push(`   ${label} slice at ${w}`);
      }
    }
    // Losses: the thread's name says how many events it lost, and the
    // "events lost" instant marks where, on the thread's own track.
    if (exp.lostSuffix && !String(got.name ?? '').includes(exp.lostSuffix.trim())) {
      failures.push(`${label}: shown as "${got.name}", without "${exp.lostSuffix.trim()}"`);
    }
    if (exp.losses.length && result.showsInstants) {
      for (const l of exp.losses) {
        const drawn = (got.instants ?? []).some(([ts, n]) => ts + offset === l.tsNs && n === l.name);
        if (!drawn) {
          failures.push(`${label}: the "${l.name}" instant (ph "${l.ph}", ts ${(l.tsNs / 1000).toFixed(3)}us) is not drawn`);
          if (l.ph === 'i' && !hinted) {
            hinted = true;
            details.push('   hint: the DevTools trace engine takes only ph "I" for an instant event (Types.Events.isInstant, ' +
              'RendererHandler.handleEvent); a ph "i" event reaches no track (docs/viewers.md)');
          }
        } else {
          details.push(`   ${label}: "${l.name}" drawn at ${(l.tsNs / 1000).toFixed(3)}us`);
        }
      }
    }
    // Log messages: instants named by their text, where the thread logged them.
    if (exp.messages?.length && result.showsInstants) {
      const missing = exp.messages.filter(m => !(got.instants ?? []).some(([ts, n]) => ts + offset === m.tsNs && n === m.name));
      if (missing.length) failures.push(`${label}: ${missing.length} of ${exp.messages.length} log messages not drawn, first "${missing[0].name}"`);
      else details.push(`   ${label}: ${exp.messages.length} log message(s) drawn, first "${exp.messages[0].name}"`);
    }
    if (exp.losses.length && !result.showsInstants && exp.lostSuffix) {
      details.push(`   ${label}: loss shown by the track name only (${result.instantNote ?? 'this viewer draws no instants'})`);
    }
  }
  for (const t of parsedByTid.values()) {
    if (!t.slices.length) continue;
    lines.push(`   ${pad(`${t.name ?? '?'} (${t.tid})`, 22)} ${pad('-', 10)} ${pad(t.slices.length, 8)} ${pad('-', 9)} ${pad(t.depth, 6)}  thread not in the capture`);
    failures.push(`thread ${t.tid} (${t.name}) is not in the capture`);
  }
  lines.push(...details);

  if (result.flows === null || result.flows === undefined) {
    lines.push(`   flows: expected ${expected.flows.length}, not checked (${result.flowNote ?? 'viewer has no flows'})`);
  } else {
    const exp = new Set(expected.flows.map(f => flowKey(f.from, f.to)));
    const got = new Set(result.flows);
    const missing = [...exp].filter(k => !got.has(k));
    const extra = [...got].filter(k => !exp.has(k));
    const unpaired = expected.unpairedFlows ? ` (${expected.unpairedFlows} s/f whose other end was lost or cut off not counted)` : '';
    lines.push(`   flows: expected ${exp.size}${unpaired}, bound ${got.size}${missing.length || extra.length ? `, ${missing.length} missing, ${extra.length} unexpected` : ', all match'}`);
    if (missing.length || extra.length || exp.size !== result.flows.length) {
      failures.push(`flows: ${missing.length} of ${exp.size} not bound as written, ${extra.length} unexpected`);
      for (const k of missing.slice(0, MAX_EXAMPLES)) lines.push(`   flow missing    ${k}`);
      for (const k of extra.slice(0, MAX_EXAMPLES)) lines.push(`   flow unexpected ${k}`);
    }
  }
  for (const c of result.checks ?? []) {
    lines.push(`   ${c.line}`);
    if (!c.ok) failures.push(c.line);
  }
  for (const n of result.notes ?? []) lines.push(`   note: ${n}`);
  for (const f of failures) lines.push(`   FAIL: ${f}`);
  lines.push(`   ${failures.length ? 'FAILED' : 'OK'}`);
  return {ok: failures.length === 0, lines};
}
