// Screenshots of the web interface's main pages (sources, ask with an answer, sessions), light
// and dark, into docs/screenshots/. Runs the built command (`npm run build` first) on a
// temporary data directory with a small loopback site, in Debian's chromium
// (GURU_TEST_CHROMIUM to use another binary):
//
//   node scripts/screenshots.js
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { chromium } from 'playwright-core';

const bin = fileURLToPath(new URL('../dist/bin/guru-mcp.js', import.meta.url));
const out = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'guru-mcp-screenshots-'));
const env = { ...process.env, GURU_ALLOW_PRIVATE_NETWORK: '1', GURU_RATE_LIMIT_PER_MINUTE: '0', GURU_LLM_URL: '' };

const SITE = {
  '/install': ['Installing Frobnicator', '<p>Frobnicator runs on Linux and macOS. Install it with <code>pipx install frobnicator</code>, then run <code>frob init</code> in your project.</p>'],
  '/dial': ['Calibrating the wibble dial', '<p>Turn the wibble dial clockwise until the gauge reads 3, then run <code>frob calibrate</code>. Calibration takes about two minutes.</p>'],
};
const site = createServer((req, res) => {
  const page = SITE[req.url ?? ''];
  if (!page) return res.writeHead(404).end('Not found');
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!DOCTYPE html><html lang="en"><head><title>${page[0]}</title></head><body><main><h1>${page[0]}</h1>${page[1]}</main></body></html>`);
});
await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
const siteUrl = (path) => `http://127.0.0.1:${site.address().port}${path}`;

const { api_key: apiKey } = JSON.parse(execFileSync(process.execPath, [bin, 'guru', 'create', 'frob', '--name', 'Frobnicator', '--json', '--data-dir', dataDir], { env }).toString());
const server = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data-dir', dataDir], { env, stdio: ['ignore', 'ignore', 'pipe'] });
const base = await new Promise((resolve, reject) => {
  let stderr = '';
  server.stderr.on('data', (chunk) => {
    stderr += chunk;
    const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
    if (match) resolve(match[1]);
  });
  server.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${stderr}`)));
});

const browser = await chromium.launch({ executablePath: process.env.GURU_TEST_CHROMIUM ?? '/usr/bin/chromium' });
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 860 } });
  await page.goto(base);
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sources', level: 1 }).waitFor();

  await page.getByLabel('Name', { exact: true }).fill('Wibble settings');
  await page.getByLabel('Content', { exact: true }).fill(
    '# Wibble settings\n\nThe wibble level of Frobnicator defaults to 3. Set it in `frob.toml`:\n\n```toml\n[wibble]\nlevel = 4\n```\n\nLevels above 7 need the turbo gears.',
  );
  await page.getByLabel('Labels', { exact: true }).nth(1).fill('configuration');
  await page.getByRole('button', { name: 'Add text' }).click();
  await page.getByRole('row').filter({ hasText: 'Wibble settings' }).getByText('Ready').waitFor();
  await page.getByLabel('URLs', { exact: true }).fill([siteUrl('/install'), siteUrl('/dial'), siteUrl('/missing')].join('\n'));
  await page.getByRole('button', { name: 'Add URLs' }).click();
  await page.getByRole('row').filter({ hasText: 'Calibrating the wibble dial' }).getByText('Ready').waitFor();
  await page.getByRole('row').filter({ hasText: '/missing' }).getByText('Failed').waitFor();
  await page.getByRole('status').first().evaluate((element) => element.replaceChildren());
  await shoot(page, 'sources');

  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Ask', exact: true }).click();
  await page.getByLabel('Question').fill('How do I change the wibble level?');
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await page.getByRole('region', { name: 'References' }).waitFor();
  await page.getByRole('region', { name: 'Follow-up questions' }).getByRole('heading').waitFor({ timeout: 5000 }).catch(() => {});
  await shoot(page, 'ask', { fullPage: true });

  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.getByLabel('Question').fill('How long does calibration take?');
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await page.getByRole('region', { name: 'References' }).waitFor();

  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Sessions', exact: true }).click();
  await page.getByRole('region', { name: 'Today' }).getByRole('link').first().waitFor();
  await shoot(page, 'sessions');
  if (process.env.GURU_SCREENSHOT_PHONE) {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: process.env.GURU_SCREENSHOT_PHONE });
  }
} finally {
  await browser.close();
  server.kill('SIGTERM');
  site.close();
  await new Promise((resolve) => server.once('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}

async function shoot(page, name, options = {}) {
  mkdirSync(out, { recursive: true });
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: join(out, `${name}-${colorScheme}.png`), ...options });
    process.stdout.write(`docs/screenshots/${name}-${colorScheme}.png\n`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
