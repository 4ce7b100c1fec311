// Reads slices per thread and flows out of the DevTools trace engine's parsed
// data (`ParsedTrace.data`). Used in node for @paulirish/trace_engine and, as
// source text, inside Chromium's DevTools page, so it must stay
// self-contained: no imports, no closures.
export function summarizeParsedTrace(data) {
  const threads = [];
  for (const [pid, proc] of data.Renderer.processes) {
    for (const [tid, thread] of proc.threads) {
      const slices = [];
      for (const e of thread.entries) {
        if (e.ph === 'X') slices.push([e.ts, e.dur ?? 0, e.name ?? '']);
      }
      let depth = 0;
      const stack = [...(thread.tree?.roots ?? [])].map(n => [n, 1]);
      while (stack.length) {
        const [node, d] = stack.pop();
        if (d > depth) depth = d;
        for (const c of node.children ?? []) stack.push([c, d + 1]);
      }
      threads.push({pid, tid, name: thread.name, slices, depth, treeMaxDepth: thread.tree?.maxDepth ?? null});
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
      slices: t.slices.map(([ts, dur, name]) => [ns(ts), ns(dur), name]),
      depth: t.depth,
    })),
    flows: summary.flows.map(f => `${f[0][0]}@${ns(f[0][1])}->${f[f.length - 1][0]}@${ns(f[f.length - 1][1])}`),
    notes: [],
  };
}
