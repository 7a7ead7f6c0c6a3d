// A directory user's login in Debian's Chromium (tests/cli/console/
// console_integration_test.py runs it against a console whose policy file
// maps directory groups to roles, and a private slapd): a wrong password
// is refused on the form; the right one logs in, with the role of the
// user's directory group in the header; a reviewer sees the review form.
// usage: node directory_login.mjs URL USER PASSWORD
// Prints one JSON line of what it saw; exits 1 on the first failed check.
import { checker, launchChromium } from './browser.mjs';

const [url, user, password] = process.argv.slice(2);
const seen = {};

const check = checker('directory_login', seen);

const browser = await launchChromium();
const page = await browser.newPage();
try {
  page.setDefaultTimeout(20000);
  await page.goto(url + '/login');
  await page.fill('#user', user);
  await page.fill('#password', password + '-wrong');
  await page.click('#login');
  await page.waitForSelector('p.error');
  seen.wrong = (await page.locator('p.error').textContent()).trim();
  check(/Wrong user or password/.test(seen.wrong), 'a wrong password was not refused');

  await page.fill('#user', user);
  await page.fill('#password', password);
  await page.click('#login');
  await page.waitForURL(/\/incidents$/);
  seen.who = (await page.locator('span.who').textContent()).trim();
  check(seen.who === user + ' (reviewer)', 'not logged in as a reviewer: ' + seen.who);
  await page.click('a.incident-link');
  await page.waitForURL(/\/incidents\/\d+$/);
  seen.review_form = await page.locator('#resolve').count();
  check(seen.review_form === 1, 'a reviewer does not see the review form');
  console.log(JSON.stringify(seen));
} catch (e) {
  const text = await page.locator('body').innerText().catch(() => '');
  console.error('directory_login: FAILED at ' + page.url() + ': ' +
                e.message.split('\n')[0] + '\npage: ' + text.slice(0, 500) +
                '\nseen: ' + JSON.stringify(seen));
  process.exitCode = 1;
} finally {
  await browser.close();
}
