// The model the viewers should end up with, computed from the JSON alone.
//
// Per thread (tid): every complete slice (a B matched with the next E of the
// same thread, innermost first, plus every X), each as start/duration in
// integer nanoseconds and name; the maximum nesting depth (1 = only top-level
// slices); per capture: the flows (an `s` and an `f` with the same cat, name
// and id).

/** Microseconds (as written, 3 decimals) to integer nanoseconds. */
export function usToNs(us) {
  return Math.round(Number(us) * 1000);
}

/**
 * Maximum nesting depth of a set of [startNs, durNs] intervals of one thread.
 * Parents sort before children at equal start (longer first); a slice that
 * starts exactly where another ends is its sibling, not its child.
 */
export function maxDepth(slices) {
  const sorted = slices.map(s => [s[0], s[0] + s[1]]).sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const stack = [];
  let depth = 0;
  for (const [start, end] of sorted) {
    while (stack.length && stack[stack.length - 1] <= start) stack.pop();
    stack.push(end);
    depth = Math.max(depth, stack.length);
  }
  return depth;
}

export function computeExpected(trace) {
  const events = Array.isArray(trace) ? trace : trace.traceEvents;
  if (!Array.isArray(events)) throw new Error('no traceEvents array in the trace');
  const threads = new Map();  // tid -> {tid, pid, name, slices: [[startNs, durNs, name]], ...}
  const thread = (e) => {
    const tid = e.tid;
    if (!threads.has(tid)) {
      threads.set(tid, {tid, pid: e.pid, name: null, sortIndex: null, slices: [], open: [], orphanEnds: 0, incomplete: 0});
    }
    return threads.get(tid);
  };
  const problems = [];
  const flowStarts = new Map();  // cat|name|id -> {tid, tsNs}
  const flows = [];
  for (const e of events) {
    switch (e.ph) {
      case 'M':
        if (e.name === 'thread_name' && e.tid !== undefined) thread(e).name = e.args?.name ?? null;
        if (e.name === 'thread_sort_index' && e.tid !== undefined) thread(e).sortIndex = e.args?.sort_index ?? null;
        break;
      case 'B':
        thread(e).open.push(e);
        break;
      case 'E': {
        const t = thread(e);
        const b = t.open.pop();
        if (!b) {
          t.orphanEnds++;
          break;
        }
        if (e.name !== undefined && e.name !== b.name) {
          problems.push(`tid ${t.tid}: E "${e.name}" at ${e.ts} closes B "${b.name}" at ${b.ts}`);
        }
        if (e.args?.incomplete) t.incomplete++;
        const start = usToNs(b.ts);
        t.slices.push([start, usToNs(e.ts) - start, b.name ?? '']);
        break;
      }
      case 'X':
        thread(e).slices.push([usToNs(e.ts), usToNs(e.dur), e.name ?? '']);
        break;
      case 's':
        flowStarts.set(`${e.cat}|${e.name}|${e.id}`, {id: e.id, tid: e.tid, tsNs: usToNs(e.ts)});
        break;
      case 'f': {
        const key = `${e.cat}|${e.name}|${e.id}`;
        const s = flowStarts.get(key);
        if (!s) {
          problems.push(`flow ${e.id}: f without s`);
          break;
        }
        flowStarts.delete(key);
        flows.push({id: e.id, from: {tid: s.tid, tsNs: s.tsNs}, to: {tid: e.tid, tsNs: usToNs(e.ts)}});
        break;
      }
      default:
        break;
    }
  }
  for (const t of threads.values()) {
    if (t.open.length) problems.push(`tid ${t.tid}: ${t.open.length} B without E`);
    if (t.orphanEnds) problems.push(`tid ${t.tid}: ${t.orphanEnds} E without B`);
    t.depth = maxDepth(t.slices);
    delete t.open;
  }
  for (const s of flowStarts.values()) problems.push(`flow ${s.id}: s without f`);
  return {threads, flows, problems};
}

/** Key of one flow, comparable across viewers: "tid@ns->tid@ns". */
export function flowKey(from, to) {
  return `${from.tid}@${from.tsNs}->${to.tid}@${to.tsNs}`;
}
