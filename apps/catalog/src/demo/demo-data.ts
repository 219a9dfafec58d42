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

interface Family {
  readonly brands: readonly string[];
  readonly models: readonly string[];
  readonly price: readonly [number, number];
  readonly attrs: (r: () => number) => Record<string, string>;
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const colors = ['черный', 'белый', 'серебристый', 'синий', 'зеленый', 'красный'];

const GENERIC: Family = {
  brands: ['Xiaomi', 'Huawei', 'Samsung', 'Lenovo', 'ASUS', 'Canon', 'GoPro', 'Nokia', 'Baseus', 'Anker'],
  models: ['Pro', 'Lite', 'Max', 'Plus', 'Air', 'S', 'X'],
  price: [990, 149990],
  attrs: (r) => ({ color: pick(r, colors), warranty_months: pick(r, ['12', '24']) }),
};

/** Product families by leaf slug; leaves not listed use `generic`. Prices in roubles. */
const FAMILIES: Record<string, Family> = {
  android: {
    brands: ['Samsung', 'Xiaomi', 'Realme', 'Honor', 'Google'],
    models: ['Galaxy A55', 'Redmi Note 13', 'GT 6', 'Magic 6', 'Pixel 8'],
    price: [9990, 119990],
    attrs: (r) => ({
      color: pick(r, colors),
      ram_gb: pick(r, ['4', '6', '8', '12']),
      storage_gb: pick(r, ['64', '128', '256', '512']),
      os: 'Android',
    }),
  },
  iphone: {
    brands: ['Apple'],
    models: ['iPhone 13', 'iPhone 14', 'iPhone 15', 'iPhone 15 Pro', 'iPhone 16'],
    price: [49990, 179990],
    attrs: (r) => ({ color: pick(r, colors), storage_gb: pick(r, ['128', '256', '512', '1024']), os: 'iOS' }),
  },
  naushniki: {
    brands: ['Sony', 'JBL', 'Apple', 'Sennheiser'],
    models: ['WH-1000XM5', 'Tune 520BT', 'AirPods Pro 2', 'Momentum 4'],
    price: [1990, 39990],
    attrs: (r) => ({
      color: pick(r, colors),
      type: pick(r, ['накладные', 'вкладыши', 'полноразмерные']),
      wireless: pick(r, ['да', 'нет']),
    }),
  },
  oled: {
    brands: ['LG', 'Sony', 'Samsung'],
    models: ['OLED C3', 'Bravia A80L', 'S90C'],
    price: [89990, 399990],
    attrs: (r) => ({
      diagonal_in: pick(r, ['48', '55', '65', '77']),
      resolution: '4K',
      refresh_hz: pick(r, ['100', '120']),
    }),
  },
  qled: {
    brands: ['Samsung', 'TCL', 'Hisense'],
    models: ['Q60C', 'C745', 'U7K'],
    price: [39990, 199990],
    attrs: (r) => ({ diagonal_in: pick(r, ['43', '50', '55', '65', '75']), resolution: '4K' }),
  },
  led: {
    brands: ['Xiaomi', 'Haier', 'Yandex'],
    models: ['TV A2', 'S1', 'ТВ Станция'],
    price: [14990, 69990],
    attrs: (r) => ({
      diagonal_in: pick(r, ['32', '43', '50', '55']),
      resolution: pick(r, ['HD', 'Full HD', '4K']),
    }),
  },
  macbook: {
    brands: ['Apple'],
    models: ['MacBook Air 13 M2', 'MacBook Air 15 M3', 'MacBook Pro 14 M3'],
    price: [99990, 349990],
    attrs: (r) => ({
      ram_gb: pick(r, ['8', '16', '24']),
      storage_gb: pick(r, ['256', '512', '1024']),
      color: pick(r, ['серебристый', 'серый космос', 'полночь']),
    }),
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

/** `count` products; half of them under Электроника (the hot category). Ids are stable: re-runs insert nothing. */
export function demoProducts(count: number, now = new Date('2026-11-01T00:00:00Z')): DemoProduct[] {
  const r = rng(20261121);
  const hot = leavesOf(DEMO_TREE, 'elektronika');
  const all = leavesOf(DEMO_TREE);
  return Array.from({ length: count }, (_, i) => {
    const leaf = r() < 0.5 ? pick(r, hot) : pick(r, all);
    const f = FAMILIES[leaf] ?? GENERIC;
    const roubles = Math.round((f.price[0] + r() * (f.price[1] - f.price[0])) / 10) * 10 - 10 + 9.9;
    const price = Math.round(roubles * 100);
    const discounted = r() < 0.3;
    const list = discounted ? Math.round(price * (1.05 + r() * 0.3)) : 0;
    const attributes = f.attrs(r);
    return {
      id: `5eed${i.toString(16).padStart(20, '0')}`,
      leaf,
      name: `${pick(r, f.brands)} ${pick(r, f.models)} ${attributes['storage_gb'] ? `${attributes['storage_gb']} ГБ ` : ''}${attributes['color'] ?? ''}`.trim(),
      price,
      attributes,
      ...(discounted ? { pricing: { list, retail: price } } : {}),
      created_at: new Date(now.getTime() - Math.floor(r() * 90 * 86_400_000)),
    };
  });
}
