// Reads slices per thread and flows out of the DevTools trace engine's parsed
// data (`ParsedTrace.data`). Used in node for @paulirish/trace_engine and, as
// source text, inside Chromium's DevTools page, so it must stay
// self-contained: no imports, no closures.
export function summarizeParsedTrace(data) {
  const threads = [];
  for (const [pid, proc] of data.Renderer.processes) {
    for (const [tid, thread] of proc.threads) {
      // The row of each entry is its depth in the thread's tree (the flame
      // chart draws the tree: ThreadAppender).
      const level = new Map();
      const stack = [...(thread.tree?.roots ?? [])].map(n => [n, 1]);
      while (stack.length) {
        const [node, d] = stack.pop();
        level.set(node.entry, d);
        for (const c of node.children ?? []) stack.push([c, d + 1]);
      }
      const slices = [];
      const instants = [];
      let depth = 0;
      for (const e of thread.entries) {
        if (e.ph === 'X') {
          const l = level.get(e) ?? null;
          slices.push([e.ts, e.dur ?? 0, e.name ?? '', l]);
          if (l !== null && l > depth) depth = l;
        } else if (e.ph === 'I' || e.ph === 'i') {
          instants.push([e.ts, e.name ?? '']);
        }
      }
      threads.push({pid, tid, name: thread.name, slices, instants, depth, treeMaxDepth: thread.tree?.maxDepth ?? null});
    }
  }
  const flows = (data.Flows?.flows ?? []).map(f => f.map(e => [e.tid, e.ts, e.name]));
  return {threads, flows, traceIsGeneric: data.Meta?.traceIsGeneric ?? null};
}

/** Turns summarizeParsedTrace's output (times in µs) into a viewer result. */
export function toViewerResult(viewer, summary) {
  const ns = us => Math.round(Number(us) * 1000);
  return {
    viewer,
    threads: summary.threads.map(t => ({
      tid: t.tid,
      name: t.name,
      slices: t.slices.map(([ts, dur, name, level]) => [ns(ts), ns(dur), name, level]),
      instants: t.instants.map(([ts, name]) => [ns(ts), name]),
      depth: t.depth,
    })),
    showsInstants: true,
    flows: summary.flows.map(f => `${f[0][0]}@${ns(f[0][1])}->${f[f.length - 1][0]}@${ns(f[f.length - 1][1])}`),
    notes: [],
  };
}
