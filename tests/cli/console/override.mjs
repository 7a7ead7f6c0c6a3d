// A held sender on the console's self-service page, in Debian's Chromium
// (tests/cli/console/override_integration_test.py runs it):
//   login URL USER PASSWORD [JUSTIFICATION]
//       opens URL (the link of the notice), logs in through the directory;
//       with JUSTIFICATION, writes it and releases the message
//   link URL [JUSTIFICATION]
//       opens a one-time link; with JUSTIFICATION, releases the message
//   ask URL
//       asks for a one-time link to be mailed
// Prints one JSON line of what it saw: `form` (the held message's page, its
// text), `error`, `notice`, `outcome`, `status` (of the last navigation).
import { launchChromium } from './browser.mjs';

const [mode, url, ...rest] = process.argv.slice(2);
const seen = {};
const browser = await launchChromium();
const page = await browser.newPage();

async function text(selector) {
  return (await page.locator(selector).count())
    ? (await page.locator(selector).first().innerText()).trim() : undefined;
}

async function look() {
  seen.url = page.url();
  seen.error = await text('p.error');
  seen.notice = await text('p.done');
  seen.outcome = await text('#outcome');
  if (await page.locator('#justify-form').count()) {
    seen.form = (await page.locator('main, body').first().innerText()).trim();
  }
}

async function release(justification) {
  if (!justification || !(await page.locator('#justification').count())) return;
  await page.fill('#justification', justification);
  const [response] = await Promise.all([
    page.waitForNavigation(), page.click('#release')]);
  seen.status = response.status();
  seen.form_after = undefined;
  await look();
}

try {
  page.setDefaultTimeout(20000);
  const response = await page.goto(url);
  seen.status = response.status();
  if (mode === 'login') {
    const [user, password, justification] = rest;
    await page.fill('#user', user);
    await page.fill('#password', password);
    const [r] = await Promise.all([page.waitForNavigation(), page.click('#login')]);
    seen.status = r.status();
    await look();
    await release(justification);
  } else if (mode === 'link') {
    await look();
    await release(rest[0]);
  } else if (mode === 'ask') {
    const [r] = await Promise.all([page.waitForNavigation(), page.click('#send-link')]);
    seen.status = r.status();
    await look();
  } else {
    throw new Error('unknown mode ' + mode);
  }
  console.log(JSON.stringify(seen));
} catch (e) {
  const body = await page.locator('body').innerText().catch(() => '');
  console.error('override: FAILED at ' + page.url() + ': ' +
                e.message.split('\n')[0] + '\npage: ' + body.slice(0, 500) +
                '\nseen: ' + JSON.stringify(seen));
  process.exitCode = 1;
} finally {
  await browser.close();
}
