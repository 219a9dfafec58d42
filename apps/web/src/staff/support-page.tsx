import { useState } from 'react';
import { ActivityList } from '../orders/activity-page';
import { OrderList } from '../orders/orders-page';
import { useT } from '../i18n/i18n';

/** Support: a customer's orders (open one to cancel it for them; the timeline names who did) and their activity. */
export function SupportPage() {
  const t = useT();
  const [userId, setUserId] = useState('');
  const [shown, setShown] = useState('');
  return (
    <section>
      <h1>{t('staff.support.title')}</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setShown(userId.trim());
        }}
      >
        <label>
          {t('staff.support.userId')}{' '}
          <input value={userId} onChange={(e) => setUserId(e.target.value)} required />
        </label>{' '}
        <button type="submit">{t('staff.support.find')}</button>
      </form>
      {shown && (
        <>
          <OrderList key={`o-${shown}`} userId={shown} />
          <h2>{t('activity.title')}</h2>
          <ActivityList key={`a-${shown}`} userId={shown} />
        </>
      )}
    </section>
  );
}
