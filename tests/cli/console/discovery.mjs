// An admin looks at discovery's findings in Debian's Chromium
// (tests/cli/discover/discover_integration_test.py runs it): the runs,
// the folder tree, the owners, a filter by owner, then restores one
// quarantined finding with its Restore button.
// usage: node discovery.mjs URL USER PASSWORD REFERENCE OWNER
// Prints one JSON line of what it saw; exits 1 on the first failed check.
import { checker, launchChromium, logIn } from './browser.mjs';

const [url, user, password, reference, owner] = process.argv.slice(2);
const seen = {};
const check = checker('discovery', seen);

const browser = await launchChromium();
const page = await browser.newPage();
try {
  await logIn(page, url, user, password);

  await page.click('nav >> text=Discovery');
  await page.waitForURL(/\/discovery$/);
  seen.runs = (await page.locator('#discover-runs').innerText()).trim();
  seen.rows = await page.locator('#findings tbody tr').count();
  seen.tree = (await page.locator('#folder-tree').innerText()).trim();
  seen.owners = (await page.locator('#owners').innerText()).trim();
  const row = page.locator('#finding-' + reference);
  seen.row = (await row.innerText()).trim();

  await page.fill('input[name="owner"]', owner);
  await page.click('#discovery-filter button');
  await page.waitForURL(/owner=/);
  seen.owner_rows = await page.locator('#findings tbody tr').count();

  await page.goto(url + '/discovery');
  await page.locator('#finding-' + reference + ' button').click();
  await page.waitForURL(/done=restored/);
  seen.done = (await page.locator('#done').innerText()).trim();
  seen.state_after = (await page.locator('#finding-' + reference + ' .state')
                          .innerText()).trim();
  seen.buttons_after = await page.locator('#finding-' + reference + ' button')
                           .count();
  check(seen.state_after === 'restored', 'not restored');
  console.log(JSON.stringify(seen));
} finally {
  await browser.close();
}
