/**
 * The README's screenshots of the web app (docs/web/*.png), taken from a running `npm start` with its
 * demo data: `WEB_URL=http://127.0.0.1:4400 tsx --tsconfig tsconfig.base.json apps/e2e/src/web/scripts/screenshots.ts`.
 * A guest puts the newest stocked phone in the cart, alice signs in and checks out; then the staff
 * pages of stan (stock) and otto (operations).
 */
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';

const WEB = process.env['WEB_URL'] ?? 'http://127.0.0.1:4400';
const OUT = join(__dirname, '../../../../../docs/web');
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: false });
  console.log(`docs/web/${name}.png`);
}

async function signIn(page: Page, user: string): Promise<void> {
  await page.getByRole('button', { name: 'Sign in' }).first().click();
  await page.locator('#username').fill(user);
  await page.locator('#password').fill('demo');
  await page.locator('#kc-login').click();
  await page.getByText(`Signed in as ${user}`).waitFor();
}

async function main(): Promise<void> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(30_000);
    await page.goto(WEB);
    await page.getByRole('heading', { name: 'Categories' }).waitFor();
    await shot(page, 'catalog');
    await page.goto(`${WEB}/c/smartfony`);
    await page.locator('ul.products li').first().waitFor();
    await shot(page, 'category');
    await page.goto(`${WEB}/search?min_price=1000&sort=price_desc`);
    await page.locator('ul.products li').first().waitFor();
    await shot(page, 'search');
    // the newest products are the stocked ones (demo data): the first one in MSK with stock
    await page.goto(`${WEB}/c/elektronika`);
    await page.locator('ul.products li a').first().click();
    await page.getByTestId('availability').waitFor();
    await shot(page, 'product');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByText('Added to your cart').waitFor();
    await page.getByRole('link', { name: /^Cart/ }).click();
    await page.getByTestId('cart-total').waitFor();
    await signIn(page, 'alice');
    await page.goto(`${WEB}/cart`);
    await page.getByTestId('cart-total').waitFor();
    await shot(page, 'cart');
    await page.getByRole('button', { name: 'Check out' }).click();
    await page
      .getByTestId('order-state')
      .getByText('CONFIRMED', { exact: true })
      .waitFor({ timeout: 60_000 });
    await shot(page, 'order-timeline');
    await page.getByRole('link', { name: 'My orders' }).click();
    await page.locator('table tbody tr').first().waitFor();
    await shot(page, 'orders');

    const staff = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await staff.goto(`${WEB}/`);
    await signIn(staff, 'stan');
    await staff.getByRole('link', { name: 'Stock' }).click();
    await staff.getByRole('heading', { name: /Low stock/ }).waitFor();
    await shot(staff, 'staff-stock');
    await staff.getByRole('button', { name: 'Sign out' }).click();
    await staff.getByRole('button', { name: 'Sign in' }).waitFor();
    await signIn(staff, 'otto');
    await staff.getByRole('link', { name: 'Operations' }).click();
    await staff.locator('table.chart tbody tr').first().waitFor();
    await shot(staff, 'staff-operations');
  } finally {
    await browser.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
