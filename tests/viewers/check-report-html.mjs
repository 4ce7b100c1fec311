// Loads a `ludus-trace report --html` page in Debian's Chromium and checks
// that its script ran: no page error, bars for every frame in the frame chart
// (one each, or one per pixel standing for the frames it covers: data-n),
// one chart per per-frame counter statistic, grouped by kind, each with bars
// for every window frame holding a value (the numbers come from the page's
// own JSON), the flame graph beside the chart (not below the counters);
// for a diff report, one row in the counter table per counter verdict; a
// marker above each frame that logged warnings or errors, and the messages
// and async zone tables; with GPU data, a bar per queue and GPU frame, the
// CPU frame time line over them, and a row per GPU pass.
//   node check-report-html.mjs REPORT.html
import path from 'node:path';
import {launch} from './browser.mjs';

const file = process.argv[2];
if (!file) throw new Error('usage: check-report-html.mjs REPORT.html');
const b = await launch('report');
try {
  await b.page.goto('file://' + path.resolve(file));
  await b.page.setViewportSize({width: 1600, height: 1000});
  await b.page.waitForFunction(() => document.querySelectorAll('#frames rect.bar').length > 0, null, {timeout: 20000});
  const got = await b.page.evaluate(() => {
    const R = JSON.parse(document.getElementById('data').textContent).report;
    const want = R.counters.filter(c => c.frames && c.frames.length).map(c => c.frames.length);
    const charts = [...document.querySelectorAll('#counters svg')]
                       .map(s => [...s.querySelectorAll('rect.bar')].reduce((n, r) => n + +r.dataset.n, 0));
    const groups = document.querySelectorAll('#counters details').length;
    const fr = document.getElementById('frames').getBoundingClientRect();
    const fl = document.getElementById('flame').getBoundingClientRect();
    const co = document.getElementById('counters').getBoundingClientRect();
    const D = JSON.parse(document.getElementById('data').textContent);
    const diff = D.diff ? {want: D.diff.counters.filter(c => c.flags).map(c => c.name + ' ' + c.series),
                           rows: [...document.querySelectorAll('#diffcounters tr')].slice(1)
                                     .map(r => r.cells[0].textContent)} : null;
    /* index 0 of the series is the lead-in (before the first mark): not a frame, not drawn; a
     * decimated series (step) stands for count entries, each bucket sent as its shortest and longest */
    const nseries = R.frames.step ? R.frames.count : R.frames.series.length;
    const marks = R.messages.frames.filter(f => f[0] >= 1 && f[0] < nseries).length;
    return {frames: nseries - 1,
            leadIn: [...document.querySelectorAll('#frames rect.bar')].filter(r => +r.dataset.f === 0).length,
            threads: (R.threads || []).length, threadRows: document.querySelectorAll('#threads tr').length - 1,
            hitches: R.hitches.length, hitchRows: document.querySelectorAll('#hitches tr').length - 1,
            bars: [...document.querySelectorAll('#frames rect.bar')].reduce((n, r) => n + +r.dataset.n, 0), want, charts,
            diff, groups, beside: fl.left >= fr.right - 1 && fl.top < fr.bottom && fl.top < co.top,
            marks, drawnMarks: document.querySelectorAll('#frames .msgmark').length,
            first: R.messages.first.length, messageRows: document.querySelectorAll('#messages tr').length - 1,
            async: R.async.length, asyncRows: document.querySelectorAll('#async tr').length - 1,
            gpu: D.gpu ? {frames: D.gpu.tracks.reduce((n, t) => n + t.frames.length, 0),
                          bars: document.querySelectorAll('#gpuframes rect.gpubar').length,
                          cpuLine: document.querySelectorAll('#gpuframes polyline').length,
                          passes: D.gpu.passes.length,
                          passRows: document.querySelectorAll('#gpupasses tr').length - 1} : null};
  });
  const errors = b.log.filter(l => l.type === 'pageerror' || l.type === 'error');
  if (errors.length) throw new Error('page errors: ' + JSON.stringify(errors));
  if (got.bars !== got.frames) throw new Error(`frame chart: ${got.bars} bars for ${got.frames} frames`);
  if (got.leadIn) throw new Error('frame chart: the lead-in (before the first mark) is drawn as a frame');
  if (got.threadRows !== got.threads) throw new Error(`threads table: ${got.threadRows} rows for ${got.threads} threads`);
  if (got.hitchRows !== got.hitches) throw new Error(`hitch table: ${got.hitchRows} rows for ${got.hitches} hitches`);
  if (!got.want.length) throw new Error('the report holds no per-frame counter');
  if (!got.groups) throw new Error('the counter charts are not grouped');
  if (!got.beside) throw new Error('the flame graph is not beside the frame chart (above the counters)');
  if (JSON.stringify(got.charts) !== JSON.stringify(got.want))
    throw new Error(`counter charts ${JSON.stringify(got.charts)} != values per counter ${JSON.stringify(got.want)}`);
  // warnings and errors marked on the frame chart, one marker per frame that had any; the tables
  if (got.drawnMarks !== got.marks) throw new Error(`frame chart: ${got.drawnMarks} message markers for ${got.marks} frames with warnings or errors`);
  if (got.messageRows !== got.first) throw new Error(`messages table: ${got.messageRows} rows for ${got.first} messages`);
  if (got.asyncRows !== got.async) throw new Error(`async table: ${got.asyncRows} rows for ${got.async} async sites`);
  // the GPU frame time chart: a bar per queue and frame, the CPU's frame time as a line, the pass table
  if (got.gpu) {
    if (!got.gpu.frames || got.gpu.bars !== got.gpu.frames) throw new Error(`GPU chart: ${got.gpu.bars} bars for ${got.gpu.frames} GPU frames`);
    if (got.gpu.cpuLine !== 1) throw new Error('GPU chart: no CPU frame time line');
    if (got.gpu.passRows !== got.gpu.passes) throw new Error(`GPU pass table: ${got.gpu.passRows} rows for ${got.gpu.passes} passes`);
  }
  if (got.diff) {
    if (!got.diff.want.length) throw new Error('the diff report holds no counter verdict');
    if (JSON.stringify(got.diff.rows.sort()) !== JSON.stringify(got.diff.want.sort()))
      throw new Error(`diff counter table ${JSON.stringify(got.diff.rows)} != verdicts ${JSON.stringify(got.diff.want)}`);
  }
  console.log(`report html ok: ${got.frames} frames, ${got.charts.length} counter charts, ${got.marks} message markers, ` +
              `${got.async} async sites` +
              (got.diff ? `, ${got.diff.rows.length} counter verdicts in the diff table` : '') +
              (got.gpu ? `, ${got.gpu.bars} GPU frame bars and ${got.gpu.passRows} GPU passes` : ''));
} finally {
  await b.close();
}
