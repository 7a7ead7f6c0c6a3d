// The console's revocation walk (tests/cli/console/console_integration_test.py
// runs it): a reviewer logged in in Debian's Chromium is demoted, then
// removed, by `leakhound console user` in another process, and loses the
// rights at the next request each time.
// usage: node revoke.mjs URL USER PASSWORD LEAKHOUND STORE
// Prints one JSON line of what it saw; exits 1 on the first failed check.
import { execFileSync } from 'node:child_process';
import { checker, launchChromium, logIn } from './browser.mjs';

const [url, user, password, leakhound, store] = process.argv.slice(2);
const seen = {};

const check = checker('revoke', seen);

function lh(...args) {
  return execFileSync(leakhound, [...args, '--incidents', store],
                      { encoding: 'utf8', timeout: 60000 });
}

const browser = await launchChromium();
const page = await browser.newPage();
try {
  await logIn(page, url, user, password);
  await page.click('a.incident-link');
  await page.waitForURL(/\/incidents\/\d+$/);
  const incident = page.url();
  seen.reviewer_form = await page.locator('#resolve').count();
  check(seen.reviewer_form === 1, 'a reviewer sees no resolve form');

  // Demoted while the page with the form is open: the form, sent, is
  // refused; reloaded, the page offers no form.
  seen.demoted = lh('console', 'user', 'role', user, '--role', 'viewer').trim();
  await page.selectOption('#resolve-status', 'false-positive');
  await page.fill('#resolve-note', 'sent after the demotion');
  await page.click('#resolve');
  await page.waitForLoadState();
  seen.after_demotion = (await page.locator('body').innerText()).slice(0, 300);
  check(seen.after_demotion.includes('This needs the reviewer role'),
        'a demoted reviewer could still resolve');
  await page.goto(incident);
  seen.viewer_form = await page.locator('#resolve').count();
  check(seen.viewer_form === 0, 'a viewer is offered the resolve form');

  // Removed: the next request is sent to the login form.
  seen.removed = lh('console', 'user', 'remove', user).trim();
  await page.goto(incident);
  seen.after_removal = page.url();
  check(page.url().includes('/login?next='), 'a removed user is still logged in');
  console.log(JSON.stringify(seen));
} catch (e) {
  const text = await page.locator('body').innerText().catch(() => '');
  console.error('revoke: FAILED at ' + page.url() + ': ' + e.message.split('\n')[0] +
                '\npage: ' + text.slice(0, 500) + '\nseen: ' + JSON.stringify(seen));
  process.exitCode = 1;
} finally {
  await browser.close();
}
