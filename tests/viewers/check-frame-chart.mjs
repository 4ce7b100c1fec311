// The HTML report's frame chart over one 1 s frame among 5,000 normal ones
// (bench/make_shapes longframe), in Debian's Chromium: every frame that is
// not a hitch is drawn at a readable height (the axis is clamped at a robust
// top, never at the longest frame), the long frame reaches the top marked
// and labelled, the y axis has ticks, the median, p99 and threshold labels do
// not overlap; the chart zooms (the mouse wheel), and once zoomed every
// frame has a bar of its own: panning over all frames shows each normal one
// at a readable height; clicking a bar shows that frame's flame graph.
// LUDUS_SHOTS=DIR writes screenshots there.
//   node check-frame-chart.mjs REPORT.html
import path from 'node:path';
import {launch} from './browser.mjs';

const file = process.argv[2];
if (!file) throw new Error('usage: check-frame-chart.mjs REPORT.html');
const READABLE = 8; // viewBox units (the chart is about 1:1 with CSS pixels at 1600 px): the old chart gave 0.04
const b = await launch('framechart');
const problems = [];
try {
  await b.page.setViewportSize({width: 1600, height: 1000});
  await b.page.goto('file://' + path.resolve(file));
  await b.page.waitForFunction(() => document.querySelectorAll('#frames rect.bar').length > 0, null, {timeout: 20000});
  const shots = process.env.LUDUS_SHOTS;
  if (shots) await b.page.screenshot({path: path.join(shots, 'frame-chart-all.png')});
  // the whole capture: bars stand for the frames under a pixel, the longest of them
  const all = await b.page.evaluate(READABLE => {
    const R = JSON.parse(document.getElementById('data').textContent).report, FS = (0, eval)('FS'); /* the page's (a decimated series expanded) */
    const th = R.frames.hitch_threshold_ns;
    const bars = [...document.querySelectorAll('#frames rect.bar')];
    const covered = bars.reduce((n, r) => n + +r.dataset.n, 0);
    const low = bars.filter(r => FS[+r.dataset.f][1] <= th && +r.getAttribute('height') < READABLE)
                    .map(r => [+r.dataset.f, FS[+r.dataset.f][1], +r.getAttribute('height')]);
    const longest = FS.reduce((m, f, i) => f[1] > FS[m][1] ? i : m, 0);
    const overBar = bars.find(r => +r.dataset.f === longest);
    const labels = [...document.querySelectorAll('#frames text.linelabel')].map(t => t.getBBox());
    let overlap = 0;
    for (let i = 0; i < labels.length; i++)
      for (let j = i + 1; j < labels.length; j++) {
        const a = labels[i], c = labels[j];
        if (a.x < c.x + c.width && c.x < a.x + a.width && a.y < c.y + c.height && c.y < a.y + a.height) overlap++;
      }
    // index 0 is the lead-in (before the first mark): no frame, never drawn
    return {frames: FS.length - 1, covered, leadIn: bars.filter(r => +r.dataset.f === 0).length,
            low: low.slice(0, 5), nlow: low.length, longest, longestNs: FS[longest][1],
            overMarked: !!overBar && overBar.classList.contains('over'), median: R.frames.median_ns,
            ticks: document.querySelectorAll('#frames text.ytick').length, labels: labels.length, overlap,
            texts: [...document.querySelectorAll('#frames text')].map(t => t.textContent)};
  }, READABLE);
  if (all.covered !== all.frames) problems.push(`the bars stand for ${all.covered} frames of ${all.frames}`);
  if (all.leadIn) problems.push('the lead-in (before the first mark) is drawn as a frame');
  if (all.longestNs < 9e8) problems.push(`the capture's longest frame is ${all.longestNs} ns, not a 1 s one`);
  if (all.nlow) problems.push(`${all.nlow} normal frames drawn lower than ${READABLE}: ${JSON.stringify(all.low)}`);
  if (!all.overMarked) problems.push('the 1 s frame is not marked as above the axis');
  // its label: its own length in seconds, to the ms (the 1 s sleep overshoots by a little, more on a busy machine)
  const labelled = all.texts.some(t => /^\d+\.\d{3} s$/.test(t) && Math.abs(parseFloat(t) - all.longestNs / 1e9) <= 0.0015);
  if (!labelled) problems.push(`the 1 s frame (${all.longestNs} ns) is not labelled with its length`);
  if (all.ticks < 3) problems.push(`${all.ticks} y-axis ticks`);
  if (all.labels < 2 || all.overlap) problems.push(`${all.labels} line labels, ${all.overlap} overlapping pairs`);
  // zoom: three wheel steps over the chart's middle narrow the view
  const box = await b.page.locator('#frames').boundingBox();
  const before = await b.page.evaluate(() => FC.i1 - FC.i0);
  await b.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let k = 0; k < 3; k++) {
    await b.page.mouse.wheel(0, -100);
    await b.page.waitForTimeout(50);
  }
  const after = await b.page.evaluate(() => FC.i1 - FC.i0);
  if (!(after < before * 0.6)) problems.push(`the wheel did not zoom: ${before} frames in view, then ${after}`);
  // once each frame has a bar of its own, pan over all of them: each normal frame at a readable height
  const pan = await b.page.evaluate(READABLE => {
    const R = JSON.parse(document.getElementById('data').textContent).report, FS = (0, eval)('FS'); /* the page's (a decimated series expanded) */
    const th = R.frames.hitch_threshold_ns, seen = new Uint8Array(FS.length), low = [];
    const span = 400;
    seen[0] = 1; /* the lead-in: not a frame */
    for (let i0 = 1; i0 < FS.length; i0 += span) {
      setView(i0, i0 + span);
      for (const r of document.querySelectorAll('#frames rect.bar')) {
        if (r.dataset.n !== '1') return {error: 'a bar stands for ' + r.dataset.n + ' frames at ' + span + ' in view'};
        const f = +r.dataset.f;
        if (f === 0) return {error: 'the lead-in is drawn as a frame'};
        seen[f] = 1;
        if (FS[f][1] <= th && +r.getAttribute('height') < READABLE) low.push(f);
      }
    }
    return {unseen: seen.reduce((n, s) => n + (s ? 0 : 1), 0), low: low.length, first: low.slice(0, 5)};
  }, READABLE);
  if (pan.error) problems.push(pan.error);
  else {
    if (pan.unseen) problems.push(`${pan.unseen} frames never got a bar of their own while panning`);
    if (pan.low) problems.push(`${pan.low} normal frames lower than ${READABLE} when zoomed: ${pan.first}`);
  }
  // click a bar: its frame's flame graph
  await b.page.evaluate(f => setView(f - 60, f + 60), all.longest);
  const target = await b.page.evaluate(f => {
    const r = [...document.querySelectorAll('#frames rect.bar')].find(x => +x.dataset.f === f - 5);
    const bb = r.getBoundingClientRect();
    return {x: bb.x + bb.width / 2, y: bb.y + bb.height - 2};
  }, all.longest);
  await b.page.mouse.click(target.x, target.y);
  const title = await b.page.textContent('#flametitle');
  if (!title.startsWith('frame ' + (all.longest - 5) + ':')) problems.push('clicking frame ' + (all.longest - 5) +
                                                                         ' showed: ' + title.slice(0, 60));
  if (shots) await b.page.screenshot({path: path.join(shots, 'frame-chart-zoomed.png')});
  const errors = b.log.filter(l => l.type === 'pageerror' || l.type === 'error');
  if (errors.length) problems.push('page errors: ' + JSON.stringify(errors));
  if (problems.length) throw new Error(problems.join('\n'));
  console.log(`frame chart ok: ${all.frames} frames, the longest ${(all.longestNs / 1e9).toFixed(3)} s marked above ` +
              `the clamped axis, every normal frame >= ${READABLE} high (all frames, and panning zoomed in), ` +
              `zoom ${before} -> ${Math.round(after)} frames, click shows the frame's flame graph`);
} finally {
  await b.close();
}
