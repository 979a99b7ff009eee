// `trajhost view` pages in headless Chromium (Debian's chromium through playwright-core):
// every lab fixture's sessions render and load without a console error, a page error, a
// dialog or any request; the fixture's sentinel is visible; a tool call opens on a click; the
// hostile session (tests/view/hostile) shows its markup as text; a screenshot goes to
// docs/view-screenshot.png; a generated 50 MB session's page load time is measured.
//   node tests/view/check.mjs --trajhost PATH [--screenshot PATH] [--big-mb N] [--only SUBSTRING]
// (--only: the lab fixtures whose harness/version/scenario contains it; --big-mb 0: no large page)
// Prints PASS/FAIL/SKIP lines and a closing "N passed, N failed" line; exits 1 on a failure.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { generate } from './generate.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const trajhost = path.resolve(option('--trajhost', 'target/debug/trajhost'));
const screenshot = path.resolve(root, option('--screenshot', 'docs/view-screenshot.png'));
const bigMb = Number(option('--big-mb', '50'));
const only = option('--only', '');
const executablePath = option('--chromium', '/usr/bin/chromium');

// The sentinels of each lab scenario (tests/lab/scenarios.toml): any one of them must be visible.
const SENTINELS = {
  simple: ['PAPAYA-42'],
  parallel: ['PAPAYA-42', 'KIWI-58'],
  'failing-tool': ['missing.txt'],
  multibyte: ['CHERRY-本-91'],
  'long-output': ['LEMON-512', 'LIME-1024'],
};

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trajhost-view-'));
const dataDir = path.join(work, 'data');
let passed = 0, failed = 0, skipped = 0;
const pass = (what, detail = '') => { passed++; console.log(`PASS ${what}${detail ? ': ' + detail : ''}`); };
const fail = (what, detail) => { failed++; console.log(`FAIL ${what}: ${detail}`); };
const skip = (what, why) => { skipped++; console.log(`SKIP ${what}: ${why}`); };

function run(argv, options = {}) {
  return execFileSync(trajhost, ['--data-dir', dataDir, ...argv], {
    encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26, ...options,
  });
}

/** How many tool_call records `trajhost read` gives for session `s` of `home`. */
function toolCalls(home, s) {
  const out = run(['read', s.native_id, '--home', home, '--harness', s.harness, '--json']);
  return out.split('\n').filter((line) => line.trim() && JSON.parse(line).kind === 'tool_call').length;
}

function labHomes() {
  const homes = [];
  for (const harness of fs.readdirSync(path.join(root, 'fixtures')).sort()) {
    const hdir = path.join(root, 'fixtures', harness);
    if (harness === 'broken' || !fs.statSync(hdir).isDirectory()) continue;
    for (const version of fs.readdirSync(hdir).sort()) {
      const vdir = path.join(hdir, version);
      if (!fs.statSync(vdir).isDirectory()) continue;
      for (const scenario of Object.keys(SENTINELS)) {
        const home = path.join(vdir, scenario);
        if (fs.existsSync(home) && fs.statSync(home).isDirectory()) homes.push({ harness, version, scenario, home });
      }
    }
  }
  return homes.filter((h) => !only || `${h.harness}/${h.version}/${h.scenario}`.includes(only));
}

// A page loaded from file://, with everything that would be a failure collected.
async function open(browser, file, viewport = { width: 1100, height: 900 }) {
  const context = await browser.newContext({ viewport, javaScriptEnabled: true });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('dialog', async (d) => { problems.push(`dialog ${d.type()}: ${d.message()}`); await d.dismiss(); });
  page.on('request', (r) => { if (!r.url().startsWith('file://')) problems.push(`request to ${r.url()}`); });
  await context.route((url) => url.protocol !== 'file:', (route) => route.abort());
  const started = Date.now();
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 180000 });
  await page.waitForFunction(() => document.body && document.body.dataset.ready === 'true', null, { timeout: 180000 });
  const wall = Date.now() - started;
  return { context, page, problems, wall };
}

async function visibleText(page) {
  return page.evaluate(() => document.getElementById('log').innerText + '\n' + document.getElementById('top').innerText);
}

async function checkFixture(browser, fixture, takeShot) {
  const name = `${fixture.harness}/${fixture.version}/${fixture.scenario}`;
  let sessions;
  try {
    sessions = JSON.parse(run(['sessions', '--json', '--home', fixture.home]));
  } catch (e) {
    return fail(name, `sessions --json failed: ${e.stderr || e.message}`);
  }
  if (sessions.length === 0) return skip(name, 'no session the installed codecs find');
  const sentinels = SENTINELS[fixture.scenario];
  let seen = null, clicked = false;
  const problems = [];
  for (const [n, s] of sessions.entries()) {
    const file = path.join(work, `${fixture.harness}-${fixture.version}-${fixture.scenario}-${n}.html`);
    try {
      run(['view', s.native_id, '--home', fixture.home, '--harness', s.harness, '--out', file]);
    } catch (e) {
      problems.push(`view ${s.native_id} failed: ${(e.stderr || e.message).trim()}`);
      continue;
    }
    const { context, page, problems: loaded } = await open(browser, file, takeShot ? { width: 1100, height: 1140 } : undefined);
    try {
      problems.push(...loaded.map((p) => `${s.native_id}: ${p}`));
      let text = await visibleText(page);
      let hit = sentinels.find((w) => text.includes(w));
      if (hit && !seen) seen = `${hit} visible`;
      // A tool call opens on a click and shows its arguments (and its result).
      const call = page.locator('details.tool-call > summary').first();
      if (!clicked && (await call.count()) > 0) {
        await call.click();
        const body = page.locator('details.tool-call[open] > .body').first();
        await body.waitFor({ state: 'visible', timeout: 5000 });
        const shown = (await body.innerText()).trim();
        if (!/arguments/i.test(shown)) problems.push(`${s.native_id}: an opened tool call shows no arguments: ${shown.slice(0, 200)}`);
        else clicked = true;
        if (takeShot && n === 0) {
          await page.evaluate(() => window.scrollTo(0, 0));
          await page.screenshot({ path: takeShot, fullPage: false });
          console.log(`screenshot of ${name} → ${path.relative(root, takeShot)}`);
        }
      }
      if (!seen) {
        // Shown only in a tool result: open every call, then look again.
        for (const summary of await page.locator('details:not([open]) > summary').all()) await summary.click();
        for (const button of await page.locator('button.more').all()) await button.click();
        text = await visibleText(page);
        hit = sentinels.find((w) => text.includes(w));
        if (hit) seen = `${hit} visible once the folded records are opened`;
      }
    } finally {
      await context.close();
    }
  }
  if (!seen) problems.push(`none of ${sentinels.join(', ')} is visible on the ${sessions.length} page(s)`);
  // A session that holds no tool call (Aider's history stores none) has none to open: the records
  // trajhost reads, not the harness's name, decide that.
  const calls = clicked ? null : sessions.reduce((sum, s) => sum + toolCalls(fixture.home, s), 0);
  if (!clicked && calls !== 0) problems.push('no tool call that opens on a click');
  if (problems.length) return fail(name, problems.join('; '));
  pass(name, `${sessions.length} page(s), ${seen}, ${clicked ? 'a tool call opens' : 'no tool call in the session to open'}`);
}

async function checkHostile(browser) {
  const home = path.join(root, 'tests', 'view', 'hostile');
  const file = path.join(work, 'hostile.html');
  run(['view', '0b5e55ed', '--home', home, '--out', file]);
  const { context, page, problems } = await open(browser, file);
  try {
    const text = await visibleText(page);
    for (const raw of ['</script><script>alert(1)</script>', '<img src=x onerror=alert(1)>', 'HOSTILE-ANSWER-9']) {
      if (!text.includes(raw)) problems.push(`${JSON.stringify(raw)} is not shown as text`);
    }
    if (!(await page.title()).includes('</script><script>alert(1)')) problems.push(`the title is not the prompt as text: ${await page.title()}`);
    const injected = await page.evaluate(() => ({
      scripts: document.scripts.length,
      elements: document.querySelectorAll('img, svg, iframe, object, embed, [onerror], [onload], [onmouseover], #log script, #top script').length,
    }));
    if (injected.scripts !== 3) problems.push(`${injected.scripts} script elements (the page's own: 3)`);
    if (injected.elements !== 0) problems.push(`${injected.elements} elements made from session text`);
    await page.locator('details.tool-call > summary').first().click();
    const body = await page.locator('details.tool-call[open] > .body').first().innerText();
    if (!body.includes('<svg onload=alert(4)>') || !body.includes('<b onmouseover=alert(3)>')) problems.push(`the tool call's markup is not text: ${body}`);
    // The search box finds text in a closed tool result and marks it.
    await page.fill('#q', 'HOSTILE-RESULT-7');
    await page.press('#q', 'Enter');
    await page.waitForFunction(() => /match/.test(document.getElementById('status').textContent) && !/searched/.test(document.getElementById('status').textContent));
    const marks = await page.locator('#log mark').allInnerTexts();
    if (!marks.includes('HOSTILE-RESULT-7')) problems.push(`search marks ${JSON.stringify(marks)}`);
    await page.waitForTimeout(300);
    if (problems.length) return fail('hostile session', problems.join('; '));
    pass('hostile session', 'markup shown as text, no dialog, no element from session text, search finds a tool result');
  } finally {
    await context.close();
  }
}

async function measureBig(browser) {
  const home = path.join(work, 'big');
  const made = generate(home, bigMb);
  const file = path.join(work, 'big.html');
  const t0 = Date.now();
  run(['view', made.id, '--home', home, '--out', file]);
  const renderMs = Date.now() - t0;
  const pageBytes = fs.statSync(file).size;
  const { context, page, problems, wall } = await open(browser, file);
  try {
    const timing = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      return { domContentLoaded: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, ready: window.trajhostView.readyAt, records: window.trajhostView.records, blocks: window.trajhostView.blocks };
    });
    // Scrolling renders more; the search scans every record.
    for (let k = 0; k < 5; k++) {
      await page.mouse.wheel(0, 20000);
      await page.waitForTimeout(100);
    }
    const shown = await page.locator('#log > .rec').count();
    const searchStarted = Date.now();
    await page.fill('#q', 'NEEDLE-END');
    await page.press('#q', 'Enter');
    await page.waitForFunction(() => / in \d+ records/.test(document.getElementById('status').textContent), null, { timeout: 180000 });
    const searchMs = Date.now() - searchStarted;
    const status = await page.locator('#status').innerText();
    const heap = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : 0));
    const seconds = (ms) => (ms / 1000).toFixed(2) + ' s';
    console.log(`view ${bigMb} MB: session ${(made.bytes / 1e6).toFixed(1)} MB (${timing.records} records, ${made.turns} turns), page ${(pageBytes / 1e6).toFixed(1)} MB in ${timing.blocks} blocks, written by trajhost view in ${seconds(renderMs)}`);
    console.log(`view ${bigMb} MB in Chromium: DOMContentLoaded ${seconds(timing.domContentLoaded)}, first records shown ${seconds(timing.ready)}, load event ${seconds(timing.load)} (goto to ready: ${seconds(wall)}); after 5 scrolls ${shown} records rendered; search over all records: ${seconds(searchMs)} (${status}); JS heap then ${(heap / 1e6).toFixed(0)} MB`);
    if (problems.length) return fail(`${bigMb} MB page`, problems.join('; '));
    if (timing.ready > 60000) return fail(`${bigMb} MB page`, `first records shown after ${seconds(timing.ready)}`);
    pass(`${bigMb} MB page`, `ready in ${seconds(timing.ready)}`);
  } finally {
    await context.close();
  }
}

const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  // Cursor's codec ships as a plugin file: installed, its lab fixtures are read too.
  const cursor = fs.readdirSync(path.join(root, 'target', 'plugins')).find((f) => f.startsWith('cursor-') && f.endsWith('.wasm'));
  if (cursor) run(['plugin', 'install', path.join(root, 'target', 'plugins', cursor)]);
  else console.log('note: no target/plugins/cursor-*.wasm: cursor fixtures are skipped');
  const homes = labHomes();
  let shot = screenshot;
  for (const fixture of homes) {
    const takeShot = shot && fixture.harness === 'claude-code' && fixture.scenario === 'parallel' ? shot : null;
    try {
      await checkFixture(browser, fixture, takeShot);
      if (takeShot) shot = null;
    } catch (e) {
      fail(`${fixture.harness}/${fixture.version}/${fixture.scenario}`, e.message);
    }
  }
  if (shot) skip('screenshot', 'the claude-code parallel fixture was not among the pages');
  try { await checkHostile(browser); } catch (e) { fail('hostile session', e.message); }
  if (bigMb > 0) {
    try { await measureBig(browser); } catch (e) { fail(`${bigMb} MB page`, e.message); }
  } else {
    skip('large page', '--big-mb 0');
  }
} finally {
  await browser.close();
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(`view: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed ? 1 : 0);
