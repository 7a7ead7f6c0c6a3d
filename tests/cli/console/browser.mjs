// What the console's browser scripts (walk.mjs, revoke.mjs) share: Debian's
// Chromium, headless, launched through playwright-core, and a check that
// ends the script with what it saw.
import { chromium } from 'playwright-core';

export function launchChromium() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
    timeout: 60000,
  });
}

// check(condition, what): exits 1, naming `script` and what it saw so far,
// when `condition` is false.
export function checker(script, seen) {
  return (condition, what) => {
    if (!condition) {
      console.error(script + ': FAILED: ' + what + ' ' + JSON.stringify(seen));
      process.exit(1);
    }
  };
}

// Logs `user` in on the console at `url` and waits for the incident list.
export async function logIn(page, url, user, password) {
  page.setDefaultTimeout(20000);
  await page.goto(url + '/login');
  await page.fill('#user', user);
  await page.fill('#password', password);
  await page.click('#login');
  await page.waitForURL(/\/incidents$/);
}
