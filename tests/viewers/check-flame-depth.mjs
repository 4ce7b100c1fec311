// Opens the HTML report of a recursion far deeper than a script engine's
// stack (bench/make_shapes deep) in Chromium: the flame graph must draw
// without a page error, one level per path depth down to the deepest
// (folded) path, and its title must say that deeper levels were folded.
//   node check-flame-depth.mjs REPORT.html
import path from 'node:path';
import {launch} from './browser.mjs';

const file = process.argv[2];
if (!file) throw new Error('usage: check-flame-depth.mjs REPORT.html');
const b = await launch('flame');
try {
  await b.page.goto('file://' + path.resolve(file), {waitUntil: 'load'});
  await b.page.waitForFunction(() => document.querySelectorAll('#flame rect').length > 1, null, {timeout: 20000})
    .catch(() => {});
  const got = await b.page.evaluate(() => {
    const R = JSON.parse(document.getElementById('data').textContent).report;
    const ys = new Set([...document.querySelectorAll('#flame rect')].map(r => r.getAttribute('y')));
    return {levels: ys.size - 1, depth: Math.max(...R.paths.map(p => p.depth)) + 1, paths: R.paths.length,
            folded: R.capture.folded, title: document.getElementById('flametitle').textContent};
  });
  const errors = b.log.filter(l => l.type === 'pageerror' || l.type === 'error');
  const problems = [];
  if (errors.length) problems.push('page errors: ' + JSON.stringify(errors).slice(0, 500));
  if (got.levels !== got.depth) problems.push(`flame graph: ${got.levels} levels drawn for paths ${got.depth} deep`);
  if (!got.folded || !/folded/.test(got.title)) problems.push(`the fold is not said: ${JSON.stringify(got.title)}`);
  if (problems.length) throw new Error(problems.join('\n'));
  console.log(`flame depth ok: ${got.levels} levels drawn, ${got.paths} paths, ${got.folded} scopes folded`);
} finally {
  await b.close();
}
