// speedscope (npm package `speedscope`, its release build in dist/release):
// the file is imported the way `speedscope FILE` does it (index.html with
// #localProfilePath= pointing at a script that calls
// speedscope.loadFileFromBase64), in headless Chromium. We then press Ctrl+S,
// speedscope's own "Export", and read the speedscope-format JSON it saves:
// one evented profile per thread, with open/close events per frame.
import fs from 'node:fs';
import path from 'node:path';
import {createRequire} from 'node:module';
import {launch} from './browser.mjs';

const require = createRequire(import.meta.url);

export async function runSpeedscope(traceFile, {timeoutMs = 110000, register} = {}) {
  const pkg = require('speedscope/package.json');
  const viewer = `speedscope ${pkg.version}`;
  const index = path.join(path.dirname(require.resolve('speedscope/package.json')), 'dist/release/index.html');
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(1000, deadline - Date.now());
  const b = await launch('speedscope');
  register?.(b.close);
  try {
    const loader = path.join(b.tmpDir, 'load-profile.js');
    const base64 = fs.readFileSync(traceFile).toString('base64');
    fs.writeFileSync(loader, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(traceFile))}, ${JSON.stringify(base64)})`);
    await b.page.goto(`file://${index}#localProfilePath=${loader}`, {timeout: left()});
    // speedscope sets the title to "<name> - speedscope" once a profile is shown.
    const name = path.basename(traceFile);
    await b.page.waitForFunction(n => document.title === `${n} - speedscope`, name, {timeout: left()}).catch(() => {
      const errs = b.log.filter(m => ['error', 'pageerror', 'dialog'].includes(m.type)).map(m => m.text);
      throw new Error(`speedscope did not show the profile${errs.length ? `: ${errs[0].slice(0, 300)}` : ''}`);
    });
    const download = b.page.waitForEvent('download', {timeout: left()});
    await b.page.keyboard.press('Control+s');
    const saved = path.join(b.tmpDir, 'export.speedscope.json');
    await (await download).saveAs(saved);
    const exported = JSON.parse(fs.readFileSync(saved, 'utf8'));
    const warnings = b.log.filter(m => m.type === 'warning' && !/GL Driver|WebGL/.test(m.text)).map(m => m.text);
    const errors = b.log.filter(m => m.type === 'error' || m.type === 'pageerror').map(m => m.text);
    return toResult(viewer, exported, warnings, errors);
  } finally {
    await b.close();
  }
}

// Profile names are "<process> (pid P), <thread> (tid T)"; event times are in
// the profile's unit from the thread's first slice (speedscope rebases each
// thread), so compare.mjs aligns them on the first slice.
function toResult(viewer, exported, warnings, errors) {
  const frames = exported.shared?.frames ?? [];
  const notes = [];
  const threads = [];
  for (const p of exported.profiles ?? []) {
    if (p.type !== 'evented') {
      notes.push(`profile "${p.name}" is ${p.type}, not evented`);
      continue;
    }
    const scale = {microseconds: 1000, milliseconds: 1e6, nanoseconds: 1, seconds: 1e9}[p.unit];
    if (!scale) throw new Error(`unexpected unit ${p.unit} in profile ${p.name}`);
    const ns = v => Math.round(Number(v) * scale);
    const tid = Number(/\(tid (\d+)\)/.exec(p.name)?.[1] ?? /tid (\d+)/.exec(p.name)?.[1]);
    const threadName = /, (.*) \(tid \d+\)$/.exec(p.name)?.[1] ?? p.name;
    const stack = [];
    const slices = [];
    let bad = 0;
    for (const ev of p.events) {
      if (ev.type === 'O') {
        stack.push(ev);
      } else if (ev.type === 'C') {
        const level = stack.length;
        const open = stack.pop();
        if (!open || open.frame !== ev.frame) bad++;
        if (open) slices.push([ns(open.at), ns(ev.at) - ns(open.at), frames[open.frame]?.name ?? '?', level]);
      }
    }
    if (bad) notes.push(`${p.name}: ${bad} close events do not match the open frame`);
    threads.push({tid, name: threadName, slices, depth: slices.reduce((m, s) => Math.max(m, s[3]), 0)});
  }
  if (warnings.length) notes.push(`${warnings.length} import warnings, first: ${warnings[0].slice(0, 200)}`);
  if (errors.length) notes.push(`${errors.length} console errors, first: ${errors[0].slice(0, 200)}`);
  return {
    // strict: every slice drawn, zero-length ones too (Ludus writes them one grid unit long, which
    // speedscope draws; a slice of duration 0 it would leave out)
    viewer, threads, relativeTime: true, dropsZeroLength: false, flows: null, flowNote: 'speedscope draws no flows',
    showsInstants: false, instantNote: 'speedscope imports only B, E and X events', notes,
  };
}

/** speedscope names a frame "<name> <JSON of args>" when the event has args. */
export function speedscopeName(n) {
  const i = n.indexOf(' {');
  return i >= 0 && n.endsWith('}') ? n.slice(0, i) : n;
}
