/**
 * Demo catalogue: a 3-level category tree in Russian and deterministic products.
 * Электроника is the hot category (seed 002: 70% of the traffic): about half the products.
 */
export interface DemoCategory {
  readonly slug: string;
  readonly name: string;
  readonly children?: readonly DemoCategory[];
}

export const DEMO_TREE: readonly DemoCategory[] = [
  {
    slug: 'elektronika',
    name: 'Электроника',
    children: [
      {
        slug: 'audio',
        name: 'Аудиотехника',
        children: [
          { slug: 'naushniki', name: 'Наушники' },
          { slug: 'kolonki', name: 'Портативные колонки' },
        ],
      },
      {
        slug: 'gadzhety',
        name: 'Гаджеты',
        children: [
          { slug: 'umnye-chasy', name: 'Умные часы' },
          { slug: 'fitnes-braslety', name: 'Фитнес-браслеты' },
        ],
      },
      {
        slug: 'foto-video',
        name: 'Фото и видео',
        children: [
          { slug: 'fotoapparaty', name: 'Фотоаппараты' },
          { slug: 'ekshn-kamery', name: 'Экшн-камеры' },
        ],
      },
      {
        slug: 'planshety',
        name: 'Планшеты',
        children: [
          { slug: 'planshety-android', name: 'Планшеты на Android' },
          { slug: 'ipad', name: 'iPad' },
        ],
      },
    ],
  },
  {
    slug: 'telefony',
    name: 'Телефоны',
    children: [
      {
        slug: 'smartfony',
        name: 'Смартфоны',
        children: [
          { slug: 'android', name: 'Android' },
          { slug: 'iphone', name: 'iPhone' },
        ],
      },
      {
        slug: 'knopochnye-telefony',
        name: 'Кнопочные телефоны',
        children: [{ slug: 'dlya-pozhilyh', name: 'Для пожилых' }],
      },
      {
        slug: 'aksessuary-telefony',
        name: 'Аксессуары',
        children: [
          { slug: 'chehly', name: 'Чехлы' },
          { slug: 'zaryadnye-ustroystva', name: 'Зарядные устройства' },
        ],
      },
    ],
  },
  {
    slug: 'noutbuki',
    name: 'Ноутбуки',
    children: [
      {
        slug: 'igrovye-noutbuki',
        name: 'Игровые ноутбуки',
        children: [
          { slug: 'igrovye-15', name: '15 дюймов' },
          { slug: 'igrovye-17', name: '17 дюймов' },
        ],
      },
      {
        slug: 'ultrabuki',
        name: 'Ультрабуки',
        children: [
          { slug: 'macbook', name: 'MacBook' },
          { slug: 'ultrabuki-windows', name: 'На Windows' },
        ],
      },
    ],
  },
  {
    slug: 'televizory',
    name: 'Телевизоры',
    children: [
      {
        slug: 'smart-tv',
        name: 'Smart TV',
        children: [
          { slug: 'oled', name: 'OLED' },
          { slug: 'qled', name: 'QLED' },
          { slug: 'led', name: 'LED' },
        ],
      },
      {
        slug: 'tv-aksessuary',
        name: 'Аксессуары для ТВ',
        children: [{ slug: 'kronshteyny', name: 'Кронштейны' }],
      },
    ],
  },
];

/**
 * The products of one leaf category: each brand with its own models (a shopper searching
 * `brand:Apple` finds only Apple's), a price range and the attributes a card lists.
 */
interface Family {
  readonly lines: Readonly<Record<string, readonly string[]>>;
  readonly price: readonly [number, number];
  readonly attrs: (r: () => number) => Record<string, string>;
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const colors = ['черный', 'белый', 'серебристый', 'синий', 'зеленый', 'красный'];
const basic = (r: () => number): Record<string, string> => ({
  color: pick(r, colors),
  warranty_months: pick(r, ['12', '24']),
});
const phone = (os: string, storage: readonly string[]) => (r: () => number) => ({
  color: pick(r, colors),
  ram_gb: pick(r, ['4', '6', '8', '12']),
  storage_gb: pick(r, storage),
  os,
});
const laptop = (r: () => number): Record<string, string> => ({
  ram_gb: pick(r, ['16', '32']),
  storage_gb: pick(r, ['512', '1024']),
  color: pick(r, ['черный', 'серый']),
});

/** Product families by leaf slug, every leaf of DEMO_TREE (a spec checks it). Prices in roubles. */
export const FAMILIES: Readonly<Record<string, Family>> = {
  android: {
    lines: {
      Samsung: ['Galaxy A55', 'Galaxy S24', 'Galaxy Z Flip6'],
      Xiaomi: ['Redmi Note 13', 'Xiaomi 14', 'POCO X6 Pro'],
      Realme: ['GT 6', '12 Pro+', 'C67'],
      Honor: ['Magic 6 Pro', 'X9b', '200'],
      Google: ['Pixel 8', 'Pixel 8a', 'Pixel 9 Pro'],
    },
    price: [9990, 119990],
    attrs: phone('Android', ['64', '128', '256', '512']),
  },
  iphone: {
    lines: { Apple: ['iPhone 13', 'iPhone 14', 'iPhone 15', 'iPhone 15 Pro', 'iPhone 16'] },
    price: [49990, 179990],
    attrs: phone('iOS', ['128', '256', '512', '1024']),
  },
  'dlya-pozhilyh': {
    lines: { Nokia: ['105', '3310', '2660 Flip'], teXet: ['TM-B228', 'TM-B419'], Philips: ['Xenium E2317'] },
    price: [1490, 6990],
    attrs: basic,
  },
  chehly: {
    lines: {
      Spigen: ['Ultra Hybrid', 'Liquid Air'],
      Apple: ['Silicone Case MagSafe'],
      Samsung: ['Smart View Wallet'],
    },
    price: [590, 5990],
    attrs: basic,
  },
  'zaryadnye-ustroystva': {
    lines: {
      Anker: ['Nano 20W', 'PowerCore 10000'],
      Baseus: ['GaN5 65W', 'Blade 100W'],
      Ugreen: ['Nexode 35W'],
    },
    price: [990, 7990],
    attrs: basic,
  },
  naushniki: {
    lines: {
      Sony: ['WH-1000XM5', 'WF-1000XM5'],
      JBL: ['Tune 520BT', 'Live 770NC'],
      Apple: ['AirPods Pro 2', 'AirPods 4'],
      Sennheiser: ['Momentum 4', 'Accentum'],
    },
    price: [1990, 39990],
    attrs: (r) => ({
      color: pick(r, colors),
      type: pick(r, ['накладные', 'вкладыши', 'полноразмерные']),
      wireless: pick(r, ['да', 'нет']),
    }),
  },
  kolonki: {
    lines: {
      JBL: ['Flip 6', 'Charge 5', 'Go 4'],
      Marshall: ['Emberton III', 'Willen II'],
      Yandex: ['Станция Мини 3', 'Станция Лайт 2'],
    },
    price: [2990, 24990],
    attrs: basic,
  },
  'umnye-chasy': {
    lines: {
      Apple: ['Watch SE', 'Watch Series 10'],
      Samsung: ['Galaxy Watch7', 'Galaxy Watch Ultra'],
      Huawei: ['Watch GT 5', 'Watch Fit 3'],
    },
    price: [8990, 89990],
    attrs: basic,
  },
  'fitnes-braslety': {
    lines: {
      Xiaomi: ['Smart Band 9', 'Smart Band 8 Active'],
      Huawei: ['Band 9', 'Band 8'],
      Garmin: ['vivosmart 5'],
    },
    price: [1990, 14990],
    attrs: basic,
  },
  fotoapparaty: {
    lines: {
      Canon: ['EOS R50', 'EOS R8'],
      Sony: ['Alpha 6400', 'ZV-E10 II'],
      Fujifilm: ['X-T30 II', 'X-S20'],
    },
    price: [59990, 249990],
    attrs: basic,
  },
  'ekshn-kamery': {
    lines: {
      GoPro: ['HERO12 Black', 'HERO13 Black'],
      DJI: ['Osmo Action 4', 'Osmo Action 5 Pro'],
      Insta360: ['X4', 'Ace Pro 2'],
    },
    price: [19990, 64990],
    attrs: basic,
  },
  'planshety-android': {
    lines: {
      Samsung: ['Galaxy Tab S9 FE', 'Galaxy Tab A9+'],
      Xiaomi: ['Pad 6', 'Redmi Pad SE'],
      Lenovo: ['Tab P12', 'Tab M11'],
    },
    price: [14990, 79990],
    attrs: phone('Android', ['64', '128', '256']),
  },
  ipad: {
    lines: { Apple: ['iPad 10.9', 'iPad Air 11 M2', 'iPad Pro 11 M4', 'iPad mini 7'] },
    price: [39990, 199990],
    attrs: phone('iPadOS', ['64', '128', '256', '512']),
  },
  'igrovye-15': {
    lines: {
      ASUS: ['TUF Gaming F15', 'ROG Strix G15'],
      Lenovo: ['Legion 5 15', 'LOQ 15'],
      MSI: ['Katana 15', 'Cyborg 15'],
    },
    price: [79990, 219990],
    attrs: laptop,
  },
  'igrovye-17': {
    lines: {
      ASUS: ['ROG Strix G17', 'TUF Gaming A17'],
      MSI: ['Raider GE78', 'Pulse 17'],
      Acer: ['Nitro 17', 'Predator Helios 18'],
    },
    price: [99990, 299990],
    attrs: laptop,
  },
  macbook: {
    lines: { Apple: ['MacBook Air 13 M2', 'MacBook Air 15 M3', 'MacBook Pro 14 M3'] },
    price: [99990, 349990],
    attrs: (r) => ({
      ram_gb: pick(r, ['8', '16', '24']),
      storage_gb: pick(r, ['256', '512', '1024']),
      color: pick(r, ['серебристый', 'серый космос', 'полночь']),
    }),
  },
  'ultrabuki-windows': {
    lines: {
      ASUS: ['Zenbook 14 OLED', 'Vivobook S15'],
      Lenovo: ['Yoga Slim 7', 'ThinkPad X1 Carbon'],
      HP: ['Pavilion Aero 13', 'Spectre x360'],
    },
    price: [59990, 229990],
    attrs: laptop,
  },
  oled: {
    lines: { LG: ['OLED C3', 'OLED B4'], Sony: ['Bravia A80L', 'Bravia 8'], Samsung: ['S90C', 'S95D'] },
    price: [89990, 399990],
    attrs: (r) => ({
      diagonal_in: pick(r, ['48', '55', '65', '77']),
      resolution: '4K',
      refresh_hz: pick(r, ['100', '120']),
    }),
  },
  qled: {
    lines: { Samsung: ['Q60C', 'Q80C'], TCL: ['C745', 'C645'], Hisense: ['U7K', 'E7K'] },
    price: [39990, 199990],
    attrs: (r) => ({ diagonal_in: pick(r, ['43', '50', '55', '65', '75']), resolution: '4K' }),
  },
  led: {
    lines: {
      Xiaomi: ['TV A2', 'TV A Pro'],
      Haier: ['S1', 'Smart TV DX'],
      Yandex: ['ТВ Станция', 'ТВ Станция Бейсик'],
    },
    price: [14990, 69990],
    attrs: (r) => ({
      diagonal_in: pick(r, ['32', '43', '50', '55']),
      resolution: pick(r, ['HD', 'Full HD', '4K']),
    }),
  },
  kronshteyny: {
    lines: { Kromax: ['Techno-1', 'Atlantis-45'], Holder: ['LCD-T4609', 'LEDS-7011'], ONKRON: ['M4', 'UT4'] },
    price: [990, 9990],
    attrs: basic,
  },
};

export interface DemoProduct {
  readonly id: string;
  readonly leaf: string;
  readonly name: string;
  /** Kopecks. */
  readonly price: number;
  readonly attributes: Record<string, string>;
  readonly pricing?: { list: number; retail: number };
  readonly created_at: Date;
}

/** Deterministic pseudo-random numbers (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function leavesOf(tree: readonly DemoCategory[], under?: string): string[] {
  const out: string[] = [];
  const walk = (c: DemoCategory, inside: boolean): void => {
    const now = inside || under === undefined || c.slug === under;
    if (!c.children?.length) {
      if (now) out.push(c.slug);
    } else c.children.forEach((ch) => walk(ch, now));
  };
  tree.forEach((c) => walk(c, false));
  return out;
}

function familyOf(leaf: string): Family {
  const f = FAMILIES[leaf];
  if (!f) throw new Error(`no demo product family for the leaf category ${leaf}`);
  return f;
}

/** `count` products; half of them under Электроника (the hot category). Ids are stable: re-runs insert nothing. */
export function demoProducts(count: number, now = new Date('2026-11-01T00:00:00Z')): DemoProduct[] {
  const r = rng(20261121);
  const hot = leavesOf(DEMO_TREE, 'elektronika');
  const all = leavesOf(DEMO_TREE);
  return Array.from({ length: count }, (_, i) => {
    const leaf = r() < 0.5 ? pick(r, hot) : pick(r, all);
    const f = familyOf(leaf);
    const roubles = Math.round((f.price[0] + r() * (f.price[1] - f.price[0])) / 10) * 10 - 10 + 9.9;
    const price = Math.round(roubles * 100);
    const discounted = r() < 0.3;
    const list = discounted ? Math.round(price * (1.05 + r() * 0.3)) : 0;
    const brand = pick(r, Object.keys(f.lines));
    const model = pick(r, f.lines[brand] ?? []);
    const attributes: Record<string, string> = { brand, ...f.attrs(r) };
    return {
      id: `5eed${i.toString(16).padStart(20, '0')}`,
      leaf,
      name: `${brand} ${model} ${attributes['storage_gb'] ? `${attributes['storage_gb']} ГБ ` : ''}${attributes['color'] ?? ''}`.trim(),
      price,
      attributes,
      ...(discounted ? { pricing: { list, retail: price } } : {}),
      created_at: new Date(now.getTime() - Math.floor(r() * 90 * 86_400_000)),
    };
  });
}
