import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { useApi } from '../api/api-context';
import { ApiError, unwrap } from '../api/clients';
import { useT } from '../i18n/i18n';
import { ErrorView, Loading } from '../shell/status';
import { useZone } from '../shell/zone';

function LowStock() {
  const t = useT();
  const api = useApi();
  const { zone } = useZone();
  const [threshold, setThreshold] = useState(5);
  const low = useQuery({
    queryKey: ['low-stock', zone, threshold],
    queryFn: async () =>
      unwrap(await api.inventory.GET('/low-stock', { params: { query: { zone, threshold, limit: 50 } } })),
  });
  return (
    <section>
      <h2>{t('staff.stock.lowStock', { zone, threshold })}</h2>
      <label>
        {t('staff.stock.threshold')}{' '}
        <input
          type="number"
          min={0}
          value={threshold}
          onChange={(e) => setThreshold(Math.max(0, Number(e.target.value) || 0))}
        />
      </label>
      {low.isPending ? (
        <Loading />
      ) : low.isError ? (
        <ErrorView error={low.error} />
      ) : low.data.items.length === 0 ? (
        <p>{t('staff.stock.none')}</p>
      ) : (
        <ul>
          {low.data.items.map((i) => (
            <li key={i.product_id}>
              <Link to={`/staff/stock?product=${i.product_id}`}>{i.product_id}</Link>: {i.available}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * A stock-take is conditional (ADR 0040): read the zone's level and its ETag, count, send the count
 * with If-Match; a sale in between is a 412 and nothing is written.
 */
function StockTake({ productId }: { productId: string }) {
  const t = useT();
  const api = useApi();
  const qc = useQueryClient();
  const { zone } = useZone();
  const read = useMutation({
    mutationFn: async () => {
      const r = await api.inventory.GET('/stock/{productId}/{zone}', {
        params: { path: { productId, zone } },
      });
      return { level: unwrap(r), etag: r.response.headers.get('etag') ?? '' };
    },
  });
  const save = useMutation({
    mutationFn: async ({ available, reason }: { available: number; reason: string }) =>
      unwrap(
        await api.inventory.PUT('/stock/{productId}/{zone}', {
          params: { path: { productId, zone }, header: { 'if-match': read.data?.etag ?? '' } },
          body: { available, reason },
        }),
      ),
    onSuccess: async () => {
      read.reset();
      await qc.invalidateQueries({ queryKey: ['stock', productId] });
      await qc.invalidateQueries({ queryKey: ['ledger', productId] });
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>): void => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    save.mutate({ available: Number(f.get('counted')), reason: String(f.get('reason') ?? '') });
  };
  const stale = save.error instanceof ApiError && save.error.status === 412;
  return (
    <section>
      <h2>{t('staff.stock.take', { zone })}</h2>
      <button type="button" onClick={() => read.mutate()} disabled={read.isPending}>
        {t('staff.stock.read')}
      </button>
      {read.data && (
        <form onSubmit={submit}>
          <p>
            {t('staff.stock.readVersion', { version: read.data.etag, available: read.data.level.available })}
          </p>
          <label>
            {t('staff.stock.counted')} <input name="counted" type="number" min={0} required />
          </label>{' '}
          <label>
            {t('staff.stock.reason')} <input name="reason" required defaultValue="stock-take" />
          </label>{' '}
          <button type="submit" disabled={save.isPending}>
            {t('staff.stock.save')}
          </button>
        </form>
      )}
      {save.isSuccess && (
        <p role="status">{t('staff.stock.saved', { available: save.data.available, zone })}</p>
      )}
      {stale ? (
        <p role="alert">{t('staff.stock.stale')}</p>
      ) : (
        save.isError && <ErrorView error={save.error} />
      )}
      {read.isError && <ErrorView error={read.error} />}
    </section>
  );
}

/** Stock of one product in every zone (staff see reserved and sold), restock with an Idempotency-Key, the zone's ledger. */
function ProductStock({ productId }: { productId: string }) {
  const t = useT();
  const api = useApi();
  const qc = useQueryClient();
  const { zone } = useZone();
  const key = useRef<string | undefined>(undefined);
  const stock = useQuery({
    queryKey: ['stock', productId],
    queryFn: async () =>
      unwrap(await api.inventory.GET('/stock/{productId}', { params: { path: { productId } } })),
  });
  const ledger = useQuery({
    queryKey: ['ledger', productId, zone],
    queryFn: async () =>
      unwrap(
        await api.inventory.GET('/ledger/{productId}/{zone}', { params: { path: { productId, zone } } }),
      ),
  });
  const restock = useMutation({
    mutationFn: async ({ qty, reason }: { qty: number; reason: string }) => {
      key.current ??= crypto.randomUUID();
      return unwrap(
        await api.inventory.POST('/stock/{productId}/{zone}/restock', {
          params: { path: { productId, zone }, header: { 'idempotency-key': key.current } },
          body: { qty, reason },
        }),
      );
    },
    onSuccess: async () => {
      key.current = undefined;
      await qc.invalidateQueries({ queryKey: ['stock', productId] });
      await qc.invalidateQueries({ queryKey: ['ledger', productId] });
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>): void => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    restock.mutate({ qty: Number(f.get('qty')), reason: String(f.get('reason') ?? '') });
  };
  if (stock.isPending) return <Loading />;
  if (stock.isError) return <ErrorView error={stock.error} />;
  return (
    <section>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('zone.label')}</th>
            <th scope="col">{t('staff.stock.available')}</th>
            <th scope="col">{t('staff.stock.reserved')}</th>
            <th scope="col">{t('staff.stock.committed')}</th>
          </tr>
        </thead>
        <tbody>
          {stock.data.map((s) => (
            <tr key={s.zone}>
              <td>{s.zone}</td>
              <td data-testid={`available-${s.zone}`}>{s.available}</td>
              <td>{'reserved' in s ? s.reserved : '—'}</td>
              <td>{'committed' in s ? s.committed : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <form onSubmit={submit}>
        <h2>
          {t('staff.stock.restock')} ({zone})
        </h2>
        <label>
          {t('staff.stock.qty')} <input name="qty" type="number" min={1} required defaultValue={10} />
        </label>{' '}
        <label>
          {t('staff.stock.reason')} <input name="reason" required defaultValue="delivery" />
        </label>{' '}
        <button type="submit" disabled={restock.isPending}>
          {t('staff.stock.restock')}
        </button>
      </form>
      {restock.isSuccess && (
        <p role="status">{t('staff.stock.restocked', { qty: restock.variables.qty, zone })}</p>
      )}
      {restock.isError && <ErrorView error={restock.error} />}
      <StockTake productId={productId} />
      <h2>{t('staff.stock.ledger', { zone })}</h2>
      {ledger.isPending ? (
        <Loading />
      ) : ledger.isError ? (
        <ErrorView error={ledger.error} />
      ) : (
        <ol>
          {ledger.data.map((m) => (
            <li key={m.id}>
              {new Date(m.at).toLocaleString()} {m.kind} {m.qty} {m.reason ?? m.order_id ?? ''}{' '}
              {m.by ? `(${m.by.sub})` : ''}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function StockPage() {
  const t = useT();
  const [params] = useSearchParams();
  const [productId, setProductId] = useState(() => params.get('product') ?? '');
  const [shown, setShown] = useState(productId);
  return (
    <section>
      <h1>{t('staff.stock.title')}</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setShown(productId.trim());
        }}
      >
        <label>
          {t('staff.stock.product')}{' '}
          <input value={productId} onChange={(e) => setProductId(e.target.value)} pattern="[0-9a-f]{24}" />
        </label>{' '}
        <button type="submit">{t('staff.stock.lookup')}</button>
      </form>
      {shown && <ProductStock key={shown} productId={shown} />}
      <LowStock />
    </section>
  );
}
