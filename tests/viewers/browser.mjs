// Starts Debian's Chromium through playwright-core (never a downloaded
// browser), with a fresh profile directory that is removed on close.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {chromium} from 'playwright-core';

export const CHROMIUM = process.env.LUDUS_CHROMIUM || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Returns {context, page, tmpDir, close()}; console output is collected in `log`. */
export async function launch(tag) {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found (run scripts/ensure-viewer-deps.sh)`);
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), `ludus-${tag}-`));
  const context = await chromium.launchPersistentContext(path.join(tmpDir, 'user-data'), {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    acceptDownloads: true,
    timeout: 60000,
  });
  const page = context.pages()[0] ?? await context.newPage();
  const log = [];
  page.on('console', m => log.push({type: m.type(), text: m.text()}));
  page.on('pageerror', e => log.push({type: 'pageerror', text: String(e?.stack ?? e)}));
  page.on('dialog', d => {
    log.push({type: 'dialog', text: d.message()});
    d.dismiss().catch(() => {});
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await context.close().catch(() => {});
    fs.rmSync(tmpDir, {recursive: true, force: true});
  };
  return {context, page, tmpDir, log, close};
}
