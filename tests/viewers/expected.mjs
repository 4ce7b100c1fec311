// The model the viewers should end up with, computed from the JSON alone.
//
// Per track (tid): every complete slice (each X, and a B matched with the next
// E of the same track, innermost first), each as start/duration in integer
// nanoseconds and name (and its begin and end as written, in us, which
// decide its nesting), in no particular file order (Ludus writes an X when
// the slice ends, children before parents); each slice's nesting level and
// the track's maximum depth (1 = only top-level slices); its thread-scoped
// instants (i/I), among them Ludus's "events lost" markers; whether it is a
// span lane (a track of its own for the spans that could not nest on their
// thread's track). Per capture: the flows (an `s` and an `f` with the same
// cat, name and id). `problems` lists what no viewer can draw as written
// (partial overlaps on one track, unmatched B/E, losses the file does not
// say consistently).

/** Microseconds (as written, 3 decimals) to integer nanoseconds. */
export function usToNs(us) {
  return Math.round(Number(us) * 1000);
}

/** Span lanes: tid 0x40000000 + thread_index*32 + lane (src/export/chrome_json.c). */
export const LANE_TID_BASE = 0x40000000;
/** GPU tracks: a pseudo-thread per lane of each GPU queue from 0x7ffd0000 (docs/gpu.md). */
export const GPU_TID_BASE = 0x7ffd0000;
/** Async tracks: a pseudo-thread per lane from 0x7ffe0000 (fibers, from 0x7fff0000, are threads). */
export const ASYNC_TID_BASE = 0x7ffe0000;
export const FIBER_TID_BASE = 0x7fff0000;
export const LANES_PER_THREAD = 32;
export const LOSS_NAME_PREFIX = 'ludus: events lost';

/**
 * Nesting of a set of [startNs, durNs, name, startUs, endUs] slices of one
 * track: the level of each (1 = top level, same order as the input), the
 * maximum depth, and the pairs that overlap without one containing the
 * other. Nesting is decided on the values as written (startUs, endUs: the
 * file's ts and ts + dur, which Ludus writes on a binary grid where these
 * doubles are exact, below the ns: docs/viewers.md), as every viewer adds
 * them; without them (a slice given in ns only), on the ns. Parents sort
 * before children at equal start (longer first); a slice that starts
 * exactly where another ends is its sibling, not its child.
 */
export function nesting(slices) {
  const b = i => slices[i][3] ?? slices[i][0];
  const end = i => slices[i][4] ?? slices[i][0] + slices[i][1];
  const order = slices.map((s, i) => i).sort((x, y) => b(x) - b(y) || end(y) - end(x));
  const levels = new Array(slices.length);
  const stack = [];  // indices
  const overlaps = [];
  let depth = 0;
  for (const i of order) {
    const start = b(i);
    while (stack.length && end(stack[stack.length - 1]) <= start) stack.pop();
    if (stack.length && end(i) > end(stack[stack.length - 1])) overlaps.push([stack[stack.length - 1], i]);
    stack.push(i);
    levels[i] = stack.length;
    depth = Math.max(depth, stack.length);
  }
  return {levels, depth, overlaps};
}

/** Maximum nesting depth of a set of [startNs, durNs] intervals of one track. */
export function maxDepth(slices) {
  return nesting(slices).depth;
}

export function computeExpected(trace) {
  const events = Array.isArray(trace) ? trace : trace.traceEvents;
  if (!Array.isArray(events)) throw new Error('no traceEvents array in the trace');
  const threads = new Map();  // tid -> {tid, pid, name, sortIndex, slices: [[startNs, durNs, name]], levels, ...}
  const thread = (e) => {
    const tid = e.tid;
    if (!threads.has(tid)) {
      threads.set(tid, {
        tid, pid: e.pid, name: null, sortIndex: null, slices: [], instants: [], losses: [], firstEntry: null,
        isLane: tid >= LANE_TID_BASE && tid < GPU_TID_BASE, isAsync: tid >= ASYNC_TID_BASE && tid < FIBER_TID_BASE,
        isGpu: tid >= GPU_TID_BASE && tid < ASYNC_TID_BASE,
        open: [], orphanEnds: 0,
      });
    }
    return threads.get(tid);
  };
  const problems = [];
  const flowStarts = new Map();  // cat|name|id -> {tid, tsNs}
  const flowEnds = [];
  const flows = [];
  let index = 0;
  // The order in which DevTools' trace engine meets each track: its first
  // B, E, X or I event in the file (RendererHandler.handleEvent).
  const seen = t => {
    if (t.firstEntry === null) t.firstEntry = index;
  };
  for (const e of events) {
    index++;
    switch (e.ph) {
      case 'M':
        if (e.name === 'thread_name' && e.tid !== undefined) thread(e).name = e.args?.name ?? null;
        if (e.name === 'thread_sort_index' && e.tid !== undefined) thread(e).sortIndex = e.args?.sort_index ?? null;
        break;
      case 'B':
        seen(thread(e));
        thread(e).open.push(e);
        break;
      case 'E': {
        const t = thread(e);
        seen(t);
        const b = t.open.pop();
        if (!b) {
          t.orphanEnds++;
          break;
        }
        if (e.name !== undefined && e.name !== b.name) {
          problems.push(`tid ${t.tid}: E "${e.name}" at ${e.ts} closes B "${b.name}" at ${b.ts}`);
        }
        const start = usToNs(b.ts);
        t.slices.push([start, usToNs(e.ts) - start, b.name ?? '', Number(b.ts), Number(e.ts)]);
        break;
      }
      case 'X':
        seen(thread(e));
        thread(e).slices.push([usToNs(e.ts), usToNs(e.dur), e.name ?? '', Number(e.ts), Number(e.ts) + Number(e.dur ?? 0)]);
        break;
      case 'i':
      case 'I': {
        if (e.s !== undefined && e.s !== 't') break;  // process and global instants have no thread track
        const t = thread(e);
        if (e.ph === 'I') seen(t);
        const inst = {tsNs: usToNs(e.ts), name: e.name ?? '', cat: e.cat, ph: e.ph};
        t.instants.push(inst);
        if (e.cat === 'ludus' && inst.name.startsWith(LOSS_NAME_PREFIX)) t.losses.push({...inst, lost: e.args?.lost});
        if (e.cat === 'log') (t.messages ??= []).push(inst); /* ludus_log: the text is the name */
        break;
      }
      case 's':
        flowStarts.set(`${e.cat}|${e.name}|${e.id}`, {id: e.id, tid: e.tid, tsNs: usToNs(e.ts)});
        break;
      case 'f':
        flowEnds.push(e);
        break;
      default:
        break;
    }
  }
  // A flow's f may come before its s in the file (each thread's events are
  // written together): pair them after the whole file is read.
  const danglingEnds = [];
  for (const e of flowEnds) {
    const key = `${e.cat}|${e.name}|${e.id}`;
    const s = flowStarts.get(key);
    if (!s) {
      danglingEnds.push({id: e.id, tid: e.tid, tsNs: usToNs(e.ts)});
      continue;
    }
    flowStarts.delete(key);
    flows.push({id: e.id, from: {tid: s.tid, tsNs: s.tsNs}, to: {tid: e.tid, tsNs: usToNs(e.ts)}});
  }

  const meta = new Map((trace.metadata?.threads ?? []).map(t => [t.tid, t]));
  const losses = [...threads.values()].flatMap(t => t.losses.map(l => ({tid: t.tid, ...l})));
  const capturedLosses = losses.length > 0 || Number(trace.metadata?.dropped ?? 0) > 0;
  for (const t of threads.values()) {
    if (t.open.length) problems.push(`tid ${t.tid}: ${t.open.length} B without E`);
    if (t.orphanEnds) problems.push(`tid ${t.tid}: ${t.orphanEnds} E without B`);
    delete t.open;
    const n = nesting(t.slices);
    t.levels = n.levels;
    t.depth = n.depth;
    for (const [a, b] of n.overlaps.slice(0, 3)) {
      const f = i => `"${t.slices[i][2]}" ${(t.slices[i][0] / 1000).toFixed(3)}+${(t.slices[i][1] / 1000).toFixed(3)}us`;
      problems.push(`tid ${t.tid}${t.isLane ? ' (span lane)' : ''}: ${f(b)} overlaps ${f(a)} without nesting in it`);
    }
    if (n.overlaps.length > 3) problems.push(`tid ${t.tid}: ${n.overlaps.length - 3} more overlapping slices`);
    // Losses are said three times: metadata, the marker instant, the name.
    const m = meta.get(t.tid);
    const dropped = Number(m?.dropped ?? 0);
    if (t.isLane) continue;
    if (dropped > 0) {
      const suffix = ` [${dropped} events lost]`;
      if (!t.name?.endsWith(suffix)) problems.push(`tid ${t.tid}: metadata says ${dropped} events lost, its thread_name "${t.name}" does not end with "${suffix}"`);
      if (t.losses.length !== 1) problems.push(`tid ${t.tid}: metadata says ${dropped} events lost, the trace has ${t.losses.length} "${LOSS_NAME_PREFIX}" instants on it`);
      else if (Number(t.losses[0].lost) !== dropped) problems.push(`tid ${t.tid}: loss instant says ${t.losses[0].lost} lost, metadata ${dropped}`);
    } else if (t.losses.length) {
      problems.push(`tid ${t.tid}: ${t.losses.length} "${LOSS_NAME_PREFIX}" instants on a thread the metadata says lost nothing`);
    }
    t.lostSuffix = dropped > 0 ? ` [${dropped} events lost]` : null;
  }
  // The lane tracks belong to the thread whose sort index they follow.
  for (const t of threads.values()) {
    if (!t.isLane) continue;
    const lane = (t.tid - LANE_TID_BASE) % LANES_PER_THREAD;
    const ownerIndex = t.sortIndex === null ? null : t.sortIndex - lane;
    t.lane = lane;
    t.owner = [...threads.values()].find(o => !o.isLane && o.sortIndex === ownerIndex)?.tid ?? null;
    if (lane === 0 || t.owner === null) problems.push(`tid ${t.tid}: a span lane track (tid >= 0x40000000) with no thread at sort index ${ownerIndex}`);
    else if (t.name !== null && !t.name.startsWith(`${threads.get(t.owner).name?.replace(/ \[\d+ events lost\]$/, '')} spans ${lane}`)) {
      problems.push(`tid ${t.tid}: span lane ${lane} of "${threads.get(t.owner).name}" is named "${t.name}"`);
    }
  }
  // A flow end may be among a thread's lost events, and so may a flow start;
  // in a cut (ludus-trace convert --from/--to) either may be outside the
  // window: only then is an unpaired s or f expected.
  const cutFrom = trace.metadata?.cut_from_ns;
  const cutTo = trace.metadata?.cut_to_ns;
  let unpaired = 0;
  for (const s of flowStarts.values()) {
    if (capturedLosses || cutTo !== undefined) unpaired++;
    else problems.push(`flow ${s.id}: s without f`);
  }
  for (const f of danglingEnds) {
    if (losses.some(l => l.tsNs <= f.tsNs) || (capturedLosses && !losses.length) || cutFrom !== undefined) unpaired++;
    else problems.push(`flow ${f.id}: f without s`);
  }
  return {threads, flows, unpairedFlows: unpaired, losses, problems};
}

/**
 * The order of the thread tracks in DevTools' Performance panel for a
 * generic (non-Chrome) JSON trace, Chromium 156 (see docs/viewers.md):
 * CompatibilityTracksAppender sorts every thread as ThreadType.OTHER, then by
 * the number of entries (X, paired B/E, and ph "I" instants) descending; the
 * sort is stable, so ties keep the order in which the engine met each track
 * (its first B/E/X/I event in the file). Tracks are then grouped by process,
 * a process where its first track falls. thread_sort_index, tid and names
 * play no part.
 */
export function devtoolsTrackOrder(expected) {
  const tracks = [...expected.threads.values()].filter(t => t.firstEntry !== null);
  const entries = t => t.slices.length + t.instants.filter(i => i.ph === 'I').length;
  tracks.sort((a, b) => a.firstEntry - b.firstEntry);
  tracks.sort((a, b) => entries(b) - entries(a));
  const byPid = new Map();
  for (const t of tracks) {
    if (!byPid.has(t.pid)) byPid.set(t.pid, []);
    byPid.get(t.pid).push(t.tid);
  }
  return [...byPid.values()].flat();
}

/** The order the capture asks for: thread_sort_index (thread_index*32 + lane), then tid. */
export function wantedTrackOrder(expected) {
  return [...expected.threads.values()]
    .filter(t => t.slices.length || t.instants.length)
    .sort((a, b) => (a.sortIndex ?? Infinity) - (b.sortIndex ?? Infinity) || a.tid - b.tid)
    .map(t => t.tid);
}

/** Key of one flow, comparable across viewers: "tid@ns->tid@ns". */
export function flowKey(from, to) {
  return `${from.tid}@${from.tsNs}->${to.tid}@${to.tsNs}`;
}
