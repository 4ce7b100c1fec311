// Opens an HTML report of the hostile-name capture (tests/format/hostile_names.c)
// in Debian's Chromium with a trap set before any script of the page runs:
// every payload of the corpus sets window.__pwned (or calls alert), so the
// test fails if any script of a name runs, if a dialog opens, if the page
// throws, or if the page holds an element or a handler that its template
// does not make. It also checks the names are shown as text (the sites
// table holds them as written) rather than dropped.
//   node check-hostile-html.mjs REPORT.html
import path from 'node:path';
import {launch} from './browser.mjs';

const file = process.argv[2];
if (!file) throw new Error('usage: check-hostile-html.mjs REPORT.html');
const b = await launch('hostile');
try {
  await b.context.addInitScript(() => {
    const hits = [];
    Object.defineProperty(window, '__ludusHits', {value: hits, configurable: false});
    Object.defineProperty(window, '__pwned', {configurable: false, get: () => undefined,
                                              set: v => hits.push('__pwned=' + v)});
    for (const f of ['alert', 'confirm', 'prompt', 'print', 'open'])
      window[f] = (...a) => { hits.push(f + '(' + a.join(',') + ')'); };
  });
  await b.page.goto('file://' + path.resolve(file), {waitUntil: 'load'});
  await b.page.waitForFunction(() => document.querySelectorAll('#sites tr').length > 1, null, {timeout: 20000})
    .catch(() => {}); /* a page a name broke draws nothing: said below */
  const got = await b.page.evaluate(() => {
    const own = new Set(['HTML', 'HEAD', 'META', 'TITLE', 'STYLE', 'BODY', 'H1', 'H2', 'H3', 'P', 'SPAN', 'B', 'DIV',
                         'BUTTON', 'SCRIPT', 'TABLE', 'TBODY', 'TR', 'TH', 'TD', 'LABEL', 'INPUT', 'DETAILS',
                         'SUMMARY', 'svg', 'rect', 'line', 'text', 'title', 'g', 'path', 'polyline']);
    const foreign = [], handlers = [];
    for (const e of document.querySelectorAll('*')) {
      if (!own.has(e.tagName)) foreign.push(e.tagName);
      for (const a of e.attributes)
        if (a.name.startsWith('on'))
          handlers.push(e.tagName + ' ' + a.name + '=' + a.value);
    }
    const cells = [...document.querySelectorAll('#sites td:first-child')].map(td => td.textContent);
    return {hits: window.__ludusHits.slice(), foreign, handlers, cells,
            scripts: document.querySelectorAll('script').length, text: document.body.textContent};
  });
  const problems = [];
  if (got.hits.length) problems.push('a payload ran: ' + JSON.stringify(got.hits));
  const errors = b.log.filter(l => l.type === 'pageerror' || l.type === 'error' || l.type === 'dialog');
  if (errors.length) problems.push('page errors or dialogs: ' + JSON.stringify(errors));
  if (got.foreign.length) problems.push('elements the template does not make: ' + JSON.stringify(got.foreign));
  if (got.handlers.length) problems.push('handlers the template does not set: ' + JSON.stringify(got.handlers));
  if (got.scripts !== 2) problems.push(`${got.scripts} scripts in the page, the template has 2`);
  for (const want of ['</script><script>window.__pwned=1</script>', '<img src=x onerror="window.__pwned=2">',
                      '<!--<script>window.__pwned=4//'])
    /* as written, or followed by its (file:line) where two sites share the name */
    if (!got.cells.some(c => c === want || c.startsWith(want + ' (')))
      problems.push('the sites table does not show ' + JSON.stringify(want));
  if (problems.length) throw new Error(problems.join('\n'));
  console.log(`hostile html ok: no payload ran, ${got.cells.length} sites shown as text, ` +
              `only the template's elements (${path.basename(file)})`);
} finally {
  await b.close();
}
