import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';
import { useT } from '../i18n/i18n';
import { PagedTable, pageQuery } from '../shell/paged-table';

/** What a user did (carts' activity log): the signed-in user's, or (support) a named user's. */
export function ActivityList({ userId }: { userId?: string }) {
  const t = useT();
  const api = useApi();
  return (
    <PagedTable
      queryKey={['activity', userId ?? 'mine']}
      fetchPage={async (cursor) =>
        unwrap(await api.carts.GET('/activity', { params: { query: pageQuery(userId, cursor) } }))
      }
      empty={t('activity.empty')}
      columns={[t('activity.when'), t('activity.what'), t('activity.about')]}
      rowKey={(a) => a.event_id + a.event_type}
      row={(a) => (
        <>
          <td>{new Date(a.event_time).toLocaleString()}</td>
          <td>{a.event_type}</td>
          <td>{a.resource_id ?? '—'}</td>
        </>
      )}
    />
  );
}

export function ActivityPage() {
  const t = useT();
  return (
    <section>
      <h1>{t('activity.title')}</h1>
      <ActivityList />
    </section>
  );
}
