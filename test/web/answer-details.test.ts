/**
 * The web interface's details around answers, in a real browser against the built `serve`: what
 * shows while signed out, the sign-in help, trust scores coloured by what their band means, and
 * no votes or speech on a declined answer (on the Ask page and in the session).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARTIAL_CEILING, RELIABLE_TRUST } from '../../src/engine/answer/trust.js';
import { launchBrowser, watchedPage } from '../support/browser.js';
import { serveGuru, type ServedGuru } from '../support/serve.js';

let served: ServedGuru;
let browser: Browser;
let page: Page;
let problems: string[];

beforeAll(async () => {
  [served, browser] = await Promise.all([serveGuru('frob'), launchBrowser()]);
  ({ page, problems } = await watchedPage(browser));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

const nav = (name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true }).click();
const article = (question: string) => page.getByRole('article').filter({ hasText: question });

/** The colour a CSS value computes to on this page, for comparing a score's colour with the theme's. */
const colourOf = (value: string) =>
  page.evaluate((css) => {
    const probe = document.createElement('span');
    probe.style.color = css;
    document.body.append(probe);
    const colour = getComputedStyle(probe).color;
    probe.remove();
    return colour;
  }, value);

async function ask(question: string): Promise<void> {
  await page.getByLabel('Question', { exact: true }).fill(question);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await article(question).getByText(/Trust score/).waitFor();
}

describe('answers in the web interface', () => {
  it('shows no navigation while signed out, and the sign-in help names the commands as code', async () => {
    await page.goto(served.base);
    const help = page.locator('.field .hint');
    await help.waitFor();
    expect(await page.getByRole('navigation', { name: 'Pages' }).isVisible()).toBe(false);
    expect(await help.textContent()).not.toContain('`');
    expect(await help.locator('code').allTextContents()).toEqual(['guru-mcp guru create', 'guru-mcp key create']);

    await page.getByLabel('API key').fill(served.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sources', level: 1 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Pages' }).isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Pages' }).isVisible()).toBe(false);
  });

  it('draws the trust bands where the engine does, and paints none of them red', async () => {
    const bands = await page.evaluate(`import('/assets/trust-bands.js').then((m) => ({ covered: m.COVERED_TRUST, reliable: m.RELIABLE_TRUST }))`);
    expect(bands).toEqual({ covered: PARTIAL_CEILING + 1, reliable: RELIABLE_TRUST });

    // A right answer's usual score (docs/answers.md: right answers' median 33-42) is low evidence, not an error.
    const shown = await page.evaluate(`import('/assets/answer-parts.js').then(({ trustScore }) => {
      const scores = [[0, false], [33, true], [49, true], [50, true], [69, true], [70, true], [12, false]];
      const elements = scores.map(([score, canReceiveFeedback]) => trustScore(score, { canReceiveFeedback }));
      document.body.append(...elements);
      const result = elements.map((element) => ({
        band: element.className,
        text: element.textContent,
        meaning: element.title,
        colour: getComputedStyle(element.querySelector('strong')).color,
      }));
      elements.forEach((element) => element.remove());
      return result;
    })`) as { band: string; text: string; meaning: string; colour: string }[];
    expect(shown.map((score) => score.band)).toEqual(['trust none', 'trust low', 'trust low', 'trust fair', 'trust fair', 'trust strong', 'trust none']);
    expect(shown[1]!.text).toBe('Trust score: 33 / 100 · low evidence');
    expect(shown[1]!.meaning).toMatch(/^Scores 1 to 49: .*check the references/);
    expect(shown[0]!.text).toBe('Trust score: 0 / 100 · declined');
    expect(shown[0]!.meaning).toMatch(/holds nothing on this question/);
    const danger = await colourOf('var(--danger)');
    for (const score of shown) expect(score.colour).not.toBe(danger);
    expect(shown[1]!.colour).toBe(await colourOf('var(--warn)'));
    expect(shown[5]!.colour).toBe(await colourOf('var(--ok)'));
    expect(new Set(shown.map((score) => score.colour)).size).toBe(4);
  });

  it('offers votes and speech on an answer, neither on a declined one, and explains the bands', async () => {
    await page.getByLabel('API key').fill(served.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Wibble notes');
    await page.getByLabel('Content', { exact: true }).fill('The wibble level of the Frobnicator defaults to 3 and is set in frob.toml.');
    await page.getByRole('button', { name: 'Add text' }).click();
    await page.getByRole('row').filter({ hasText: 'Wibble notes' }).getByText('Ready').waitFor();

    await nav('Ask');
    await ask('What is the default wibble level?');
    const answered = article('What is the default wibble level?');
    expect(await answered.getByRole('button', { name: 'Helpful', exact: true }).count()).toBe(1);
    expect(await answered.getByRole('button', { name: 'Play answer' }).count()).toBe(1);
    expect(await answered.locator('.trust').getAttribute('class')).not.toBe('trust none');

    await page.getByRole('button', { name: 'New conversation' }).click();
    await ask('What is the capital of Mongolia?');
    const declined = article('What is the capital of Mongolia?');
    expect(await declined.getByRole('button').count()).toBe(0);
    expect(await declined.getByRole('region', { name: 'Vote' }).count()).toBe(0);
    expect(await declined.locator('.trust').textContent()).toBe('Trust score: 0 / 100 · declined');

    await page.getByText('What the trust score says').click();
    expect(await page.locator('.trust-legend dt').allTextContents()).toEqual(['declined', 'low evidence', 'fair evidence', 'strong evidence']);
  });

  it('shows a declined turn of a session without votes or speech', async () => {
    await nav('Sessions');
    await page.getByRole('link', { name: 'What is the capital of Mongolia?' }).click();
    await page.getByRole('heading', { name: 'What is the capital of Mongolia?', level: 1 }).waitFor();
    const turn = article('What is the capital of Mongolia?');
    await turn.locator('.trust').waitFor();
    expect(await turn.getByRole('button').count()).toBe(0);
    expect(await turn.getByRole('region', { name: 'Vote' }).count()).toBe(0);
    expect(await turn.locator('.trust').textContent()).toBe('Trust score: 0 / 100 · declined');

    await nav('Sessions');
    await page.getByRole('link', { name: 'What is the default wibble level?' }).click();
    const answered = article('What is the default wibble level?');
    await answered.getByRole('button', { name: 'Helpful', exact: true }).waitFor();
    expect(await answered.getByRole('button', { name: 'Play answer' }).count()).toBe(1);
  });

  it('ran without console errors or policy violations', () => {
    expect(problems).toEqual([]);
  });
});
