// Chromium's own DevTools Performance panel (devtools://devtools/bundled/trace_app.html,
// the standalone trace viewer shipped inside Chromium): the trace goes in through
// the panel's "Load profile" file input, like a user would load it; then we read
// what the panel drew (the flame chart's per-thread tracks) and the trace
// engine's parsed model (flows) through the page's own ES modules.
import {launch} from './browser.mjs';
import {summarizeParsedTrace} from './parsed-trace.mjs';

const APP = 'devtools://devtools/bundled/trace_app.html';
const MODULE = 'devtools://devtools/bundled';

export async function runDevTools(traceFile, {timeoutMs = 110000, register} = {}) {
  const viewer = 'Chromium DevTools Performance panel (trace_app.html)';
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(1000, deadline - Date.now());
  const b = await launch('devtools');
  register?.(b.close);
  try {
    const version = b.context.browser()?.version() ?? null;
    const response = await b.page.goto(APP, {timeout: left()});
    if (!response || !response.ok()) throw new Error(`${APP} did not load (status ${response?.status()})`);
    // Once the app has started (its UI is up), show the Performance panel and
    // keep a handle on it. Before that, the modules' singletons are not ready.
    // The app logs "Main._showAppUI: N ms" (console.timeEnd) when its UI is up.
    while (!b.log.some(m => m.text.includes('_showAppUI'))) {
      if (Date.now() > deadline) throw new Error(`${APP} never showed its UI`);
      await b.page.waitForTimeout(100);
    }
    for (;;) {
      try {
        await b.page.evaluate(async (base) => {
          const UI = await import(`${base}/ui/legacy/legacy.js`);
          await UI.ViewManager.ViewManager.instance().showView('timeline');
          const Timeline = await import(`${base}/panels/timeline/timeline.js`);
          window.__ludusPanel = Timeline.TimelinePanel.TimelinePanel.instance();
        }, MODULE);
        break;
      } catch (e) {
        if (Date.now() > deadline) throw new Error(`could not open the Performance panel: ${e.message}`);
        await b.page.waitForTimeout(250);
      }
    }
    const input = (await b.page.evaluateHandle(() => window.__ludusPanel.fileSelectorElement)).asElement();
    if (!input) throw new Error('the Performance panel has no file input ("Load profile")');
    await input.setInputFiles(traceFile);
    // Wait until the panel shows the trace, or says it failed.
    let state = null;
    for (;;) {
      state = await b.page.evaluate(() => {
        const p = window.__ludusPanel;
        try {
          p.getParsedTraceForLayoutTests();
          return {loaded: true, state: p.state};
        } catch (e) {
          return {loaded: false, state: p.state, why: e.message};
        }
      });
      if (state.loaded || state.state === 'RecordingFailed' || Date.now() > deadline) break;
      await b.page.waitForTimeout(250);
    }
    const errors = b.log.filter(m => m.type === 'error' || m.type === 'pageerror').map(m => m.text.split('\n').slice(0, 3).join(' | '));
    if (!state.loaded) {
      const why = state.state === 'RecordingFailed' ? 'the panel rejected the trace ("RecordingFailed")' : `timed out waiting for the trace (panel state ${state.state}: ${state.why})`;
      return {viewer, error: `${why}${errors.length ? `: ${errors[0]}` : ''}`, notes: errors.slice(1, 4)};
    }
    // Wait for the flame chart to be built, then read it back.
    const drawn = await b.page.evaluate(() => {
      const p = window.__ludusPanel;
      const dp = p.getFlameChart().getMainDataProvider();
      const td = dp.timelineData();
      const groups = td.groups.map((g, i) => ({
        i, name: g.name, startLevel: g.startLevel, nesting: g.style?.nestingLevel ?? 0, kind: g.jslogContext ?? null,
        expanded: !!g.expanded,
      }));
      const entries = [];
      for (let i = 0; i < td.entryLevels.length; i++) {
        const ph = dp.eventByIndex?.(i)?.ph ?? null;
        entries.push([td.entryLevels[i], td.entryStartTimes[i], td.entryTotalTimes[i], dp.entryTitle(i), ph]);
      }
      return {groups, entries, selected: td.selectedGroup?.name ?? null};
    });
    const summary = await b.page.evaluate(`(${summarizeParsedTrace.toString()})(window.__ludusPanel.getParsedTraceForLayoutTests())`);
    // LUDUS_VIEWER_SCREENSHOT=FILE.png keeps a picture of the panel as loaded.
    if (process.env.LUDUS_VIEWER_SCREENSHOT) await b.page.screenshot({path: process.env.LUDUS_VIEWER_SCREENSHOT}).catch(() => {});
    return toResult(viewer, drawn, summary, errors, version);
  } finally {
    await b.close();
  }
}

// Flame chart: a thread track is a group named "<thread name> (<tid>)" whose
// jslogContext is "thread.*" (the process header "<name> (<pid>)" above it
// shares its first row); its rows run from its startLevel up to the next
// group's startLevel. Instant events (ph "I") are drawn 1 us wide in the
// rows of the slices they fall in; they are read apart from the slices.
function toResult(viewer, drawn, summary, errors, version) {
  const ns = ms => Math.round(Number(ms) * 1e6);
  const isThread = drawn.groups.some(g => g.kind?.startsWith('thread')) ? g => g.kind?.startsWith('thread') : g => g.nesting > 0;
  const threadGroups = drawn.groups
    .filter(isThread)
    .map(g => ({...g, tid: Number(/\((\d+)\)\s*$/.exec(g.name)?.[1])}))
    .filter(g => Number.isFinite(g.tid));
  const levels = [...new Set(drawn.groups.map(g => g.startLevel))].sort((a, b) => a - b);
  const threads = [];
  let claimed = 0;
  for (const g of threadGroups) {
    const end = levels.find(l => l > g.startLevel) ?? Infinity;
    const rows = drawn.entries.filter(e => e[0] >= g.startLevel && e[0] < end);
    claimed += rows.length;
    const isInstant = e => e[4] === 'I' || e[4] === 'i';
    const slices = rows.filter(e => !isInstant(e)).map(e => [ns(e[1]), ns(e[2]), e[3], e[0] - g.startLevel + 1]);
    const instants = rows.filter(isInstant).map(e => [ns(e[1]), e[3]]);
    const depth = slices.reduce((m, s) => Math.max(m, s[3]), 0);
    threads.push({tid: g.tid, name: g.name.replace(/\s*\(\d+\)\s*$/, ''), slices, instants, depth});
  }
  const notes = [];
  if (version) notes.push(`Chromium ${version}`);
  const expanded = drawn.groups.filter(g => g.expanded).map(g => g.name);
  notes.push(`tracks drawn: ${drawn.groups.map(g => g.name).join(', ')}; expanded: ${expanded.length ? expanded.join(', ') : 'none'}`);
  if (claimed !== drawn.entries.length) notes.push(`${drawn.entries.length - claimed} flame chart entries outside the thread tracks`);
  if (errors.length) notes.push(`${errors.length} console errors, first: ${errors[0].slice(0, 200)}`);
  const usNs = us => Math.round(Number(us) * 1000);
  return {
    viewer,
    threads,
    trackOrder: threadGroups.map(g => g.tid),
    showsInstants: true,
    flows: summary.flows.map(f => `${f[0][0]}@${usNs(f[0][1])}->${f[f.length - 1][0]}@${usNs(f[f.length - 1][1])}`),
    notes,
  };
}
