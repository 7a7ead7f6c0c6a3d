// The console's browser walk (tests/cli/console/console_integration_test.py
// runs it): Debian's Chromium, headless, driven by playwright-core.
// usage: node walk.mjs URL USER PASSWORD PASSAGE SCREENSHOT_DIR
// Prints one JSON line of what it saw; exits 1 on the first failed check.
import { checker, launchChromium } from './browser.mjs';

const [url, user, password, passage, shots] = process.argv.slice(2);
const seen = {};

const check = checker('walk', seen);

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
try {
  page.setDefaultTimeout(20000);
  let dialogs = 0;
  page.on('dialog', async (d) => { dialogs += 1; await d.dismiss(); });
  const cspViolations = [];
  page.on('console', (m) => { if (/Content Security Policy/.test(m.text())) cspViolations.push(m.text()); });

  // 1. Login: the console sends a visitor without a session to the form.
  await page.goto(url + '/incidents');
  check(page.url().includes('/login?next='), 'not sent to the login form: ' + page.url());
  await page.fill('#user', user);
  await page.fill('#password', password);
  await page.click('#login');
  await page.waitForURL(/\/incidents$/);
  seen.logged_in = true;

  // 2. The list, then a filter.
  const all = await page.locator('table.incidents tbody tr').count();
  seen.rows = all;
  check(all >= 2, 'fewer than 2 incidents listed');
  await page.screenshot({ path: shots + '/incidents.png', fullPage: true });
  await page.fill('#f-sender', 'eve@corp.test');
  await page.click('#filter');
  await page.waitForURL(/sender=eve/);
  const filtered = await page.locator('table.incidents tbody tr').count();
  seen.filtered_rows = filtered;
  check(filtered === 1, 'the sender filter did not leave one incident');

  // 3. The incident, its passage highlighted; the hostile subject inert.
  await page.click('a.incident-link');
  await page.waitForURL(/\/incidents\/\d+$/);
  const mark = (await page.locator('mark').first().textContent()) || '';
  seen.mark = mark.slice(0, 80);
  check(mark.replace(/\s+/g, ' ').includes(passage), 'the passage is not highlighted');
  const title = await page.title();
  seen.title = title;
  check(!title.includes('pwned') && dialogs === 0, 'the subject ran as script');
  const subjectShown = await page.locator('table.fields').textContent();
  check(subjectShown.includes('<script>'), 'the subject is not shown as text');
  await page.screenshot({ path: shots + '/incident.png', fullPage: true });

  // 4. A false positive.
  await page.selectOption('#resolve-status', 'false-positive');
  await page.fill('#resolve-note', 'test data, not a leak');
  await page.click('#resolve');
  await page.waitForSelector('#notice');
  seen.status = (await page.locator('#status').textContent()).trim();
  check(seen.status === 'false-positive', 'the status did not change');

  // 5. Release the held message.
  check(((await page.locator('#mail-state').textContent()) || '').trim() === 'held',
        'the message is not shown as held');
  // Two deliberate steps: the box, then the button.
  await page.check('#release-confirm');
  await page.click('#release');
  await page.waitForSelector('#notice');
  seen.mail_state = (await page.locator('#mail-state').textContent()).trim();
  check(seen.mail_state === 'released', 'the message was not released');
  await page.screenshot({ path: shots + '/released.png', fullPage: true });

  await page.goto(url + '/dashboard');
  seen.charts = await page.locator('svg.chart').count();
  check(seen.charts === 4, 'the dashboard does not draw its 4 charts (per day, by severity, documents, senders)');
  await page.screenshot({ path: shots + '/dashboard.png', fullPage: true });

  // 6. Logout: the session is gone.
  await page.click('#logout');
  await page.waitForURL(/\/login$/);
  await page.goto(url + '/incidents');
  check(page.url().includes('/login'), 'still logged in after logout');
  seen.logged_out = true;
  seen.dialogs = dialogs;
  seen.csp_violations = cspViolations.length;
  check(cspViolations.length === 0, 'CSP violations: ' + cspViolations.join(' | '));
  console.log(JSON.stringify(seen));
} catch (e) {
  // What the browser showed when a step failed.
  await page.screenshot({ path: shots + '/failure.png', fullPage: true }).catch(() => {});
  const text = await page.locator('body').innerText().catch(() => '');
  console.error('walk: FAILED at ' + page.url() + ': ' + e.message.split('\n')[0] +
                '\npage: ' + text.slice(0, 500) + '\nseen: ' + JSON.stringify(seen));
  process.exitCode = 1;
} finally {
  await browser.close();
}
