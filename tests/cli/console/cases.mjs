// A reviewer works incidents as cases in Debian's Chromium
// (tests/cli/console/console_integration_test.py runs it): takes one,
// assigns it to someone else and takes it back, comments on it,
// escalates it, then ticks two incidents in the list and
// resolves both at once.
// usage: node cases.mjs URL USER PASSWORD ID1 ID2
// Prints one JSON line of what it saw; exits 1 on the first failed check.
import { checker, launchChromium, logIn } from './browser.mjs';

const [url, user, password, first, second] = process.argv.slice(2);
const seen = {};
const check = checker('cases', seen);

const browser = await launchChromium();
const page = await browser.newPage();
try {
  await logIn(page, url, user, password);

  await page.goto(url + '/incidents/' + first);
  seen.workflow_before = (await page.locator('#workflow').innerText()).trim();
  await page.click('#take');
  await page.waitForURL(/done=assigned/);
  seen.owner = (await page.locator('#owner').innerText()).trim();
  seen.workflow_taken = (await page.locator('#workflow').innerText()).trim();
  check(seen.owner === user, 'not taken');

  // Reassigned to another reviewer, then taken back.
  await page.fill('#assign-owner', 'ada');
  await page.click('#assign');
  await page.waitForURL(/done=assigned/);
  seen.reassigned = (await page.locator('#owner').innerText()).trim();
  await page.click('#take');
  await page.waitForURL(/done=assigned/);

  await page.fill('#comment-text', 'Asked the sender <b>why</b>; waiting.');
  await page.click('#comment');
  await page.waitForURL(/done=commented/);
  seen.comments = (await page.locator('#comments').innerText()).trim();

  await page.fill('#escalate-to', 'dlp-leads@corp.test');
  await page.fill('#escalate-reason', 'board papers');
  await page.click('#escalate');
  await page.waitForURL(/done=escalated/);
  seen.workflow_escalated = (await page.locator('#workflow').innerText()).trim();
  seen.escalated = (await page.locator('#escalated').innerText()).trim();

  await page.goto(url + '/incidents?source=scan');
  await page.check('input[name="id-' + first + '"]');
  await page.check('input[name="id-' + second + '"]');
  await page.selectOption('#bulk-action', 'resolve');
  await page.selectOption('#bulk-status', 'false-positive');
  await page.fill('#bulk-note', 'test files');
  await page.click('#bulk-apply');
  await page.waitForURL(/done=bulk/);
  seen.notice = (await page.locator('#notice').innerText()).trim();
  seen.cases = await page.locator('td.case').allInnerTexts();
  console.log(JSON.stringify(seen));
} catch (e) {
  const text = await page.locator('body').innerText().catch(() => '');
  console.error('cases: FAILED at ' + page.url() + ': ' +
                e.message.split('\n')[0] + '\npage: ' + text.slice(0, 500) +
                '\nseen: ' + JSON.stringify(seen));
  process.exitCode = 1;
} finally {
  await browser.close();
}
