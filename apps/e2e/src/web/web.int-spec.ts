import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AxeResults } from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createMessage } from '@mw/contracts';
import { ensureTopics, KafkaPublisher } from '@mw/messaging';
import { allowWebOrigin, collectFrom, freePort, header, testEnv, type TestUser, waitFor } from '@mw/testing';
import { Stack } from '../stack';
import { WebServer } from './web-server';

/** Debian's chromium (apt-get install chromium; .ci/run installs it): Playwright's own browser download is not used. */
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
/** `WEB_SCREENSHOTS=1`: the pages this suite walks are also the README's pictures (docs/web/*.png). */
const DOCS_WEB = process.env['WEB_SCREENSHOTS'] === '1' ? join(__dirname, '../../../../docs/web') : undefined;
/** Roubles as the Russian storefront shows them (Intl ru-RU, as the app formats them). */
const rub = (amount: number): string =>
  new Intl.NumberFormat('ru-RU', { style: 'currency', currency: 'RUB', minimumFractionDigits: 2 }).format(
    amount,
  );


/**
 * The web app in a real browser (headless chromium) against the real services (processes from their
 * bundles on this run's private resources) and the project's Keycloak: a guest buys a phone, signs
 * in on Keycloak's own login page (authorization code + PKCE), sees the guest cart merged, checks
 * out and watches the order's saga reach CONFIRMED on the timeline.
 */
describe('web app in a browser (storefront → Keycloak sign-in → merge → checkout → saga timeline)', () => {
  // a shopper's walk is in Russian (the default); the staff pages are read in English (the switch)
  let stack: Stack;
  let web: WebServer;
  let browser: Browser;
  let page: Page;
  const pages: Page[] = [];
  let orderId = '';
  let productId = '';
  let slug = '';
  let disallowOrigin: (() => Promise<void>) | undefined;
  const PRICE = '59990.00';
  const NEIGHBOURS: readonly [string, string, number, { list: string; retail: string } | undefined][] = [
    ['Apple iPhone 15 128 ГБ белый', '79990.00', 40, { list: '89990.00', retail: '79990.00' }],
    ['Google Pixel 8 128 ГБ белый', '54990.00', 0, undefined],
  ];

  beforeAll(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const cors = { CORS_ORIGINS: origin };
    stack = new Stack(undefined, {
      prefix: 'e2eweb',
      customers: 2,
      env: { catalog: cors, inventory: cors, carts: cors, orders: cors },
    });
    // Keycloak's token endpoint answers this origin's browser calls (CORS) only once it is a web origin of the client
    disallowOrigin = await allowWebOrigin(origin);
    await stack.start();
    mkdirSync(stack.logDir, { recursive: true });
    web = new WebServer(
      port,
      {
        catalog: stack.urls.catalog,
        inventory: stack.urls.inventory,
        carts: stack.urls.carts,
        orders: stack.urls.orders,
      },
      testEnv().oidcIssuer,
      join(stack.logDir, 'web.log'),
    );
    await web.start();

    // a phone in the catalog (as carol), known to carts and the projector, with 5 in MSK (as stan)
    slug = `web-${stack.run.replace(/_/g, '-')}`.slice(0, 60);
    const cat = await stack.http('catalog', 'POST', '/categories', {
      name: 'Смартфоны web',
      slug,
      parent_id: null,
    });
    expect(cat.status).toBe(201);
    const p = await stack.http('catalog', 'POST', '/products', {
      name: 'Смартфон Веб 128 ГБ',
      category_id: cat.body['id'],
      price: PRICE,
      attributes: { color: 'черный' },
    });
    expect(p.status).toBe(201);
    productId = p.body['id'] as string;
    // neighbours on the shelf: one in stock (with a list price), one never stocked
    for (const [name, price, stock, pricing] of NEIGHBOURS) {
      const n = await stack.http('catalog', 'POST', '/products', {
        name,
        category_id: cat.body['id'],
        price,
        attributes: { brand: name.split(' ')[0] ?? '', color: 'белый' },
        ...(pricing ? { pricing } : {}),
      });
      expect(n.status).toBe(201);
      if (stock > 0)
        expect(
          (
            await stack.http(
              'inventory',
              'POST',
              `/stock/${n.body['id'] as string}/MSK/restock`,
              { qty: stock, reason: 'delivery' },
              { 'idempotency-key': `web-${n.body['id'] as string}` },
            )
          ).status,
        ).toBeLessThan(300);
    }
    expect(await stack.relayCatalog()).toBeGreaterThanOrEqual(1);
    await waitFor(
      async () => (await stack.http('catalog', 'GET', `/products/${productId}/card`)).status === 200,
      30_000,
      'product card from the projector',
    );
    const restock = await stack.http(
      'inventory',
      'POST',
      `/stock/${productId}/MSK/restock`,
      { qty: 5, reason: 'delivery' },
      {
        'idempotency-key': `web-${productId}`,
      },
    );
    expect(restock.status).toBeLessThan(300);
    // carts learns the product from the products topic: wait until it prices it (another customer's cart)
    const probe = stack.customers[1] as TestUser;
    const c = await stack.http('carts', 'POST', '/carts', { zone: 'MSK' }, {}, probe);
    await waitFor(
      async () =>
        (
          await stack.http(
            'carts',
            'PUT',
            `/carts/${c.body['cart_id']}/items/${productId}`,
            { qty: 1 },
            {},
            probe,
          )
        ).status === 200,
      30_000,
      'carts knows the product',
    );

    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    page = await newPage('customer', 'ru');
  }, 300_000);

  /**
   * A page in its own browser context (its own storage: another person); console and failures logged
   * beside the services' logs. Shoppers read Russian (the default), staff English (the switch, remembered).
   */
  async function newPage(who: string, locale: 'ru' | 'en' = 'en'): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    if (locale === 'en') await context.addInitScript({ content: "localStorage.setItem('mw.locale', 'en')" });
    const p = await context.newPage();
    p.setDefaultTimeout(30_000);
    const log = createWriteStream(join(stack.logDir, `browser-${who}.log`), { flags: 'a' });
    p.on('console', (m) => log.write(`${m.type()}: ${m.text()}\n`));
    p.on('pageerror', (e) => log.write(`pageerror: ${e.message}\n`));
    p.on('requestfailed', (r) =>
      log.write(`requestfailed: ${r.method()} ${r.url()} ${r.failure()?.errorText ?? ''}\n`),
    );
    pages.push(p);
    return p;
  }

  /** Keycloak's login page, from the app's Sign in button; back in the app signed in. */
  async function signIn(p: Page, username: string, password: string): Promise<void> {
    await p.getByRole('button', { name: 'Sign in' }).first().click();
    await p.waitForURL(/\/realms\/mobile-world\/protocol\/openid-connect\/auth/);
    await p.locator('#username').fill(username);
    await p.locator('#password').fill(password);
    await p.locator('#kc-login').click();
    await p.getByText(`Signed in as ${username}`).waitFor();
  }

  /** A picture of the page: docs/web/<name>.png with WEB_SCREENSHOTS=1, else beside the logs. */
  async function shot(p: Page, name: string): Promise<void> {
    await p.screenshot({ path: join(DOCS_WEB ?? stack.logDir, `${name}.png`), fullPage: false });
  }

  /** A product's card in the category grid (a fresh visit: availability is read again). */
  async function cardIn(p: Page, name: string) {
    await p.goto(`${web.url}/c/${slug}`);
    return p.getByTestId('product-card').filter({ has: p.getByRole('link', { name }) });
  }

  /** axe-core's serious and critical violations on the page as it is now (id and the elements at fault). */
  async function accessibilityViolations(p: Page): Promise<string[]> {
    await p.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const r = (await p.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as AxeResults;
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }

  /** Units of the product available in MSK, as inventory answers anyone. */
  async function availableMsk(): Promise<number> {
    const r = await stack.http<{ zone: string; available: number }[]>(
      'inventory',
      'GET',
      `/stock/${productId}`,
      undefined,
      {},
      'anonymous',
    );
    return r.body.find((z) => z.zone === 'MSK')?.available ?? 0;
  }

  afterEach(async () => {
    // what each page showed when a test ended (on failure, the first thing to look at)
    for (const [i, p] of pages.entries())
      await p
        .screenshot({ path: join(stack.logDir, `last-page-${i}.png`), fullPage: true })
        .catch(() => undefined);
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await web?.stop();
    await stack?.stop();
    await disallowOrigin?.();
  }, 90_000);

  it('a guest buys a phone, signs in with Keycloak, the cart merges, checkout reaches CONFIRMED on the timeline', async () => {
    const customer = stack.customers[0] as TestUser;

    // guest, in Russian: the catalog's tiles, then the category as a grid of cards with availability in MSK
    await page.goto(web.url);
    await page.getByRole('heading', { name: 'Категории' }).waitFor();
    await page.getByRole('button', { name: 'English' }).waitFor();
    await shot(page, 'catalog');
    const card = await cardIn(page, 'Смартфон Веб 128 ГБ');
    await card.getByTestId('card-availability').getByText('Осталось 5 шт.').waitFor();
    await card.getByText(rub(59990)).waitFor();
    const [iphone, pixel] = NEIGHBOURS.map(([name]) =>
      page.getByTestId('product-card').filter({ has: page.getByRole('link', { name }) }),
    ) as [ReturnType<Page['getByTestId']>, ReturnType<Page['getByTestId']>];
    await iphone.getByTestId('card-availability').getByText('В наличии').waitFor();
    await iphone.getByText(/^−\d+%$/).waitFor();
    await pixel.getByTestId('card-availability').getByText('Нет в наличии').waitFor();
    expect(
      await pixel.getByRole('button', { name: 'В корзину Google Pixel 8 128 ГБ белый' }).isDisabled(),
    ).toBe(true);
    await shot(page, 'category');

    // the product page: breadcrumbs, price, attributes, availability per region; into the cart
    await card.getByRole('link', { name: 'Смартфон Веб 128 ГБ' }).click();
    await page.getByRole('heading', { name: 'Смартфон Веб 128 ГБ' }).waitFor();
    await page
      .getByRole('navigation', { name: 'Навигационная цепочка' })
      .getByRole('link', { name: 'Смартфоны web' })
      .waitFor();
    await page.getByText(rub(59990)).first().waitFor();
    await page.getByRole('row', { name: 'Цвет черный' }).waitFor();
    await page.getByTestId('availability').getByText('В наличии: 5 шт.').waitFor();
    await page
      .getByTestId('zones')
      .getByRole('row', { name: /Москва/ })
      .getByText('Осталось 5 шт. (5)')
      .waitFor();
    await shot(page, 'product');
    await page.getByRole('button', { name: 'В корзину', exact: true }).click();
    await page.getByText('Добавлено в корзину').waitFor();
    await page.getByRole('link', { name: 'Корзина (1)' }).click();
    await page.getByTestId('cart-total').getByText(rub(59990)).waitFor();

    // sign in on Keycloak's login page (code + PKCE), back to the cart: the guest line is in the user's cart now
    await page.getByRole('button', { name: 'Войдите, чтобы оформить заказ' }).click();
    await page.waitForURL(/\/realms\/mobile-world\/protocol\/openid-connect\/auth/);
    await page.locator('#username').fill(customer.username);
    await page.locator('#password').fill(customer.password);
    await page.locator('#kc-login').click();
    await page.waitForURL(`${web.url}/cart`); // back where the guest was
    await page.getByText('Корзина гостя объединена с вашей (объединено: 1).').waitFor();
    await page.getByText(`Вы вошли как ${customer.username}`).waitFor();
    await page.getByTestId('cart-line').getByText('Смартфон Веб 128 ГБ').waitFor();
    await page.getByTestId('cart-total').getByText(rub(59990)).waitFor();
    await shot(page, 'cart');

    // the merge happened in the carts service: the user's cart holds the guest's line
    const carts = await stack.http<{ cart_ids: string[] }>('carts', 'GET', '/carts', undefined, {}, customer);
    expect(carts.body.cart_ids).toHaveLength(1);
    const userCart = await stack.http<{ items: Record<string, { qty: number }> }>(
      'carts',
      'GET',
      `/carts/${carts.body.cart_ids[0]}`,
      undefined,
      {},
      customer,
    );
    expect(userCart.body.items[productId]?.qty).toBe(1);

    // checkout: the order page follows the saga to CONFIRMED, each step on the timeline
    await page.getByRole('button', { name: 'Оформить заказ' }).click();
    await page.waitForURL(/\/orders\/[0-9a-f]{24}\?new=1$/);
    orderId = /\/orders\/([0-9a-f]{24})/.exec(page.url())?.[1] ?? '';
    await page
      .getByTestId('order-state')
      .getByText('CONFIRMED', { exact: true })
      .waitFor({ timeout: 60_000 });
    const timeline = page.getByTestId('timeline');
    for (const step of ['AWAITING_PAYMENT', 'CONFIRMED'])
      await timeline.getByText(step, { exact: true }).first().waitFor();
    await timeline.getByText('PaymentCaptured').waitFor();
    await shot(page, 'order-timeline');

    // the page's order is the user's order in the orders service
    const order = await stack.http<{ user_id: string; state: string; totals: { total: string } }>(
      'orders',
      'GET',
      `/orders/${orderId}`,
      undefined,
      {},
      customer,
    );
    expect(order.status).toBe(200);
    expect(order.body.user_id).toBe(customer.id);
    expect(order.body.state).toBe('CONFIRMED');
    expect(order.body.totals.total).toBe(PRICE);

    // the sale shows on the card: one unit fewer in MSK
    const after = await cardIn(page, 'Смартфон Веб 128 ГБ');
    await after.getByTestId('card-availability').getByText('Осталось 4 шт.').waitFor();
    await page.getByRole('link', { name: 'Мои заказы' }).click();
    await page.locator('table tbody tr').first().waitFor();
    await shot(page, 'orders');
    await page.goto(`${web.url}/orders/${orderId}`);
    await page.getByTestId('order-state').getByText('CONFIRMED', { exact: true }).waitFor();
  }, 180_000);

  it('another customer opening that order URL gets the not-found page', async () => {
    const other = stack.customers[1] as TestUser;
    const p = await newPage('other-customer');
    await p.goto(web.url);
    await signIn(p, other.username, other.password);
    await p.goto(`${web.url}/orders/${orderId}`);
    await p.getByRole('heading', { name: 'Not found' }).waitFor();
    expect(await p.getByTestId('order-state').count()).toBe(0);
  }, 60_000);

  it('the customer cancels the confirmed order: the timeline shows the refund and the stock coming back', async () => {
    const before = await availableMsk();
    await page.getByRole('button', { name: 'Отменить заказ' }).click();
    await page
      .getByTestId('order-state')
      .getByText('CANCELLED', { exact: true })
      .waitFor({ timeout: 60_000 });
    await page.getByTestId('order-reason').getByText('CANCELLED_BY_USER').waitFor();
    await page
      .getByTestId('payment')
      .getByText(/возвращена/)
      .waitFor({ timeout: 60_000 });
    await page.getByTestId('stock-return').getByText('returned').waitFor({ timeout: 60_000 });
    await page
      .getByTestId('timeline')
      .getByText(/кто: customer/)
      .first()
      .waitFor();
    expect(await availableMsk()).toBe(before + 1);
  }, 120_000);

  it('a declined payment ends the order cancelled, saying why', async () => {
    const decliner = stack.ruleUsers?.decline as TestUser;
    const p = await newPage('decliner');
    await p.goto(`${web.url}/p/${productId}`);
    await signIn(p, decliner.username, decliner.password);
    await p.getByRole('button', { name: 'Add to cart' }).click();
    await p.getByText('Added to your cart').waitFor();
    await p.goto(`${web.url}/cart`);
    await p.getByRole('button', { name: 'Check out' }).click();
    await p.getByTestId('order-state').getByText('CANCELLED', { exact: true }).waitFor({ timeout: 60_000 });
    await p.getByTestId('order-reason').getByText('PAYMENT_DECLINED').waitFor();
    await p.getByTestId('timeline').getByText('PaymentDeclined').waitFor();
  }, 120_000);

  it('the stock manager restocks in the console and the storefront shows the new availability', async () => {
    const before = await availableMsk();
    const p = await newPage('stan');
    await p.goto(web.url);
    await signIn(p, 'stan', 'demo');
    await p.getByRole('link', { name: 'Stock' }).click();
    await p.getByLabel('Product id').fill(productId);
    await p.getByRole('button', { name: 'Show stock' }).click();
    await p.getByTestId('available-MSK').getByText(String(before), { exact: true }).waitFor();
    await p.getByLabel('Units').fill('10');
    await p.getByRole('button', { name: 'Restock' }).click();
    await p.getByText('Restocked 10 in MSK').waitFor();
    await p
      .getByTestId('available-MSK')
      .getByText(String(before + 10), { exact: true })
      .waitFor();
    await shot(p, 'staff-stock');
    // a customer-facing page, anonymous
    const shopper = await newPage('shopper');
    await shopper.goto(`${web.url}/p/${productId}`);
    await shopper
      .getByTestId('availability')
      .getByText(`${before + 10} in stock`)
      .waitFor();
  }, 120_000);

  it('the operator sees the run’s orders in a chart and redrives a parked message back to its topic', async () => {
    // a message parked in this run's inventory-commands DLQ, as ConsumerRunner parks one, by a group
    // nothing runs (so the redriven copy is handled by nobody and changes nothing)
    const parkedBy = `e2e-parked-${stack.run}`;
    const parkedOrder = '0000000000000000000e2e01';
    await ensureTopics(stack.kafka, [stack.topics.commands], 3);
    const publisher = new KafkaPublisher(stack.kafka);
    const parked = createMessage(
      'inventory.commands.v1',
      'ReleaseStock',
      { order_id: parkedOrder },
      { correlation_id: 'e2e-web-dlq', causation_id: null },
    );
    await publisher.sendRaw(`${stack.topics.commands}.dlq`, {
      key: parkedOrder,
      value: JSON.stringify(parked.envelope),
      headers: {
        'x-dlq-reason': 'planted by the browser test',
        'x-dlq-error-code': 'E2E.PLANTED',
        'x-dlq-attempts': '1',
        'x-dlq-at': new Date().toISOString(),
        'x-dlq-consumer-group': parkedBy,
        'x-original-topic': stack.topics.commands,
      },
    });
    await publisher.disconnect();

    const p = await newPage('otto');
    await p.goto(web.url);
    await signIn(p, 'otto', 'demo');
    await p.getByRole('link', { name: 'Operations' }).click();
    // this run placed orders (one confirmed then cancelled, one declined): the cancellations chart has them
    const caption = p.getByText(/^\d+ of \d+ placed orders cancelled$/);
    await waitFor(
      async () => {
        await p.reload();
        const text = await caption.textContent({ timeout: 10_000 }).catch(() => null);
        const m = /^(\d+) of (\d+)/.exec(text ?? '');
        return m && Number(m[1]) >= 2 && Number(m[2]) >= 2 ? true : undefined;
      },
      60_000,
      'the analytics read model counts the run’s cancelled orders',
    );
    const chart = p.getByRole('img', { name: 'Cancellations by reason (30 days)' });
    await chart.waitFor();
    // chart.js drew on the canvas: it is not blank
    expect(
      await p.evaluate(`(() => {
        const canvas = document.querySelector('canvas[aria-label="Cancellations by reason (30 days)"]');
        const blank = document.createElement('canvas');
        blank.width = canvas.width;
        blank.height = canvas.height;
        return canvas.width > 0 && canvas.toDataURL() !== blank.toDataURL();
      })()`),
    ).toBe(true);
    await p.getByRole('img', { name: 'Average basket by day (30 days)' }).waitFor();
    await shot(p, 'staff-operations');

    await p.getByRole('link', { name: 'Kafka' }).click();
    await p.getByRole('heading', { name: `${stack.topics.commands}.dlq` }).waitFor();
    await p.getByRole('cell', { name: parkedOrder }).waitFor();
    await p
      .getByRole('button', { name: `Redrive ${parkedBy}’s messages to ${stack.topics.commands}` })
      .click();
    await p
      .getByText(`Moved 1 message(s) of ${parkedBy} from ${stack.topics.commands}.dlq back to their topic.`)
      .waitFor();
    await p
      .getByRole('row', { name: new RegExp(parkedOrder) })
      .getByText('redriven')
      .waitFor();
    // the message is back on its topic, marked for the group that parked it
    const back = await collectFrom(stack.kafka, [stack.topics.commands], (all) =>
      all.some((m) => m.message.key?.toString() === parkedOrder),
    );
    const copy = back.find((m) => m.message.key?.toString() === parkedOrder);
    expect(header(copy!.message, 'x-redrive-group')).toBe(parkedBy);
  }, 180_000);

  it('no page has a serious or critical accessibility violation (axe-core)', async () => {
    const found: string[] = [];
    const check = async (p: Page, path: string, ready: (p: Page) => Promise<void>): Promise<void> => {
      await p.goto(`${web.url}${path}`);
      await ready(p);
      for (const v of await accessibilityViolations(p)) found.push(`${path}: ${v}`);
    };
    const shopper = await newPage('axe-guest', 'ru');
    await check(shopper, '/', (p) => p.getByRole('heading', { name: 'Категории' }).waitFor());
    await check(shopper, `/c/${slug}`, (p) => p.getByTestId('card-availability').first().waitFor());
    // facets in the URL: the brand field shows what the link asks, and only that brand's products come
    await check(shopper, '/search?brand=Apple&sort=price_desc', (p) =>
      p.getByTestId('card-availability').first().waitFor(),
    );
    expect(await shopper.getByLabel('Бренд').inputValue()).toBe('Apple');
    expect(await shopper.getByTestId('product-card').allTextContents()).toEqual([
      expect.stringContaining('Apple iPhone 15'),
    ]);
    await shot(shopper, 'search');
    await check(shopper, `/p/${productId}`, (p) => p.getByTestId('availability').waitFor());
    await shopper.getByRole('button', { name: 'В корзину', exact: true }).click();
    await shopper.getByText('Добавлено в корзину').waitFor();
    await check(shopper, '/cart', (p) => p.getByTestId('cart-total').waitFor());
    await check(shopper, '/no-such-page', (p) => p.getByRole('heading', { name: 'Не найдено' }).waitFor());
    // the same storefront in English after the switch
    await shopper.getByRole('button', { name: 'English' }).click();
    await check(shopper, `/c/${slug}`, (p) => p.getByText('In stock').first().waitFor());
    await check(page, `/orders/${orderId}`, (p) => p.getByTestId('timeline').waitFor());
    await check(page, '/orders', (p) => p.locator('table tbody tr').first().waitFor());
    await check(page, '/activity', (p) => p.locator('table tbody tr').first().waitFor());
    const stan = pages.find((p) => p.url().includes('/staff/stock')) as Page;
    await check(stan, `/staff/stock?product=${productId}`, (p) => p.getByTestId('available-MSK').waitFor());
    const otto = pages.find((p) => p.url().includes('/staff/kafka')) as Page;
    await check(otto, '/staff/operator', (p) =>
      p.getByRole('img', { name: 'Cancellations by reason (30 days)' }).waitFor(),
    );
    await check(otto, '/staff/stuck-orders', (p) =>
      p.getByRole('heading', { name: 'Orders stuck past their saga deadline' }).waitFor(),
    );
    await check(otto, '/staff/kafka', (p) => p.getByRole('heading', { name: 'Dead letters' }).waitFor());
    expect(found).toEqual([]);
  }, 120_000);
});
