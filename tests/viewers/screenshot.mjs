// A picture of an HTML report as a reader first sees it (the README's
// docs/img/report.png, made by scripts/report-screenshot.sh), in Debian's
// Chromium: waits for the frame chart to be drawn, then writes the top of
// the page. Fails when the report draws no frame bar or logs an error.
//   node screenshot.mjs REPORT.html OUT.png [WIDTH HEIGHT]
import path from 'node:path';
import {launch} from './browser.mjs';

const [file, out, w = '1600', h = '1000'] = process.argv.slice(2);
if (!file || !out) throw new Error('usage: screenshot.mjs REPORT.html OUT.png [WIDTH HEIGHT]');
const b = await launch('screenshot');
try {
  await b.page.setViewportSize({width: +w, height: +h});
  await b.page.goto('file://' + path.resolve(file));
  await b.page.waitForFunction(() => document.querySelectorAll('#frames rect.bar').length > 0, null, {timeout: 20000});
  const errors = b.log.filter(m => m.type === 'error' || m.type === 'pageerror');
  if (errors.length) throw new Error('the report logged errors: ' + errors.map(e => e.text).join('; '));
  await b.page.screenshot({path: out});
} finally {
  await b.close();
}
