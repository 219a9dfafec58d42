import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';
import { useT } from '../i18n/i18n';
import { ErrorView, Loading } from '../shell/status';

function ConsumerLag() {
  const t = useT();
  const api = useApi();
  const lag = useQuery({
    queryKey: ['consumer-lag'],
    queryFn: async () => unwrap(await api.orders.GET('/operations/consumer-lag')),
    refetchInterval: 10_000,
  });
  if (lag.isPending) return <Loading />;
  if (lag.isError) return <ErrorView error={lag.error} />;
  const { groups, projector } = lag.data;
  return (
    <section>
      <h2>{t('staff.kafka.lag')}</h2>
      <p>
        {projector
          ? t('staff.kafka.projector', { group: projector.group, lag: projector.total_lag })
          : t('staff.kafka.noProjector')}
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('staff.kafka.group')}</th>
            <th scope="col">{t('staff.kafka.topic')}</th>
            <th scope="col">{t('staff.kafka.partition')}</th>
            <th scope="col">{t('staff.kafka.lagColumn')}</th>
          </tr>
        </thead>
        <tbody>
          {groups.flatMap((g) =>
            g.partitions.map((p) => (
              <tr key={`${g.group}/${p.topic}/${p.partition}`}>
                <td>{g.group}</td>
                <td>{p.topic}</td>
                <td>{p.partition}</td>
                <td>{p.lag}</td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </section>
  );
}

function DeadLetters() {
  const t = useT();
  const api = useApi();
  const qc = useQueryClient();
  const letters = useQuery({
    queryKey: ['dead-letters'],
    queryFn: async () => unwrap(await api.orders.GET('/operations/dead-letters')),
  });
  const redrive = useMutation({
    mutationFn: async ({ topic, group }: { topic: string; group: string }) =>
      unwrap(
        await api.orders.POST('/operations/dead-letters/{topic}/redrive', {
          params: { path: { topic } },
          body: { group },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['dead-letters'] }),
  });
  if (letters.isPending) return <Loading />;
  if (letters.isError) return <ErrorView error={letters.error} />;
  const parked = letters.data.topics.filter((x) => x.messages.length > 0);
  return (
    <section>
      <h2>{t('staff.kafka.deadLetters')}</h2>
      {redrive.data && (
        <p role="status">
          {t('staff.kafka.redriven', {
            moved: redrive.data.moved,
            group: redrive.data.group,
            dlq: redrive.data.dlq,
          })}
        </p>
      )}
      {redrive.isError && <ErrorView error={redrive.error} />}
      {parked.length === 0 && <p>{t('staff.kafka.noDeadLetters')}</p>}
      {parked.map((x) => {
        const groups = [
          ...new Set(x.messages.filter((m) => !m.redriven && m.group).map((m) => m.group ?? '')),
        ];
        return (
          <section key={x.topic}>
            <h3>{x.dlq}</h3>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('staff.kafka.offset')}</th>
                  <th scope="col">{t('staff.kafka.type')}</th>
                  <th scope="col">{t('staff.kafka.key')}</th>
                  <th scope="col">{t('staff.kafka.group')}</th>
                  <th scope="col">{t('staff.kafka.error')}</th>
                  <th scope="col">{t('staff.kafka.state')}</th>
                </tr>
              </thead>
              <tbody>
                {x.messages.map((m) => (
                  <tr key={`${m.partition}/${m.offset}`}>
                    <td>
                      {m.partition}/{m.offset}
                    </td>
                    <td>{m.type ?? '—'}</td>
                    <td>{m.key ?? '—'}</td>
                    <td>{m.group ?? '—'}</td>
                    <td>
                      {m.error_code ?? ''} {m.reason ?? ''}
                    </td>
                    <td>{m.redriven ? t('staff.kafka.isRedriven') : t('staff.kafka.isParked')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {groups.map((group) => (
              <button
                type="button"
                key={group}
                disabled={redrive.isPending}
                onClick={() => redrive.mutate({ topic: x.topic, group })}
              >
                {t('staff.kafka.redrive', { group, topic: x.topic })}
              </button>
            ))}
          </section>
        );
      })}
    </section>
  );
}

/** Operator: consumer lag per group and partition (the projector's first), dead letters and their redrive. */
export function KafkaPage() {
  const t = useT();
  return (
    <section>
      <h1>{t('staff.kafka.title')}</h1>
      <ConsumerLag />
      <DeadLetters />
    </section>
  );
}
