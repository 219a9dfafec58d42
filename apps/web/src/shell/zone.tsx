/** The zone every price, availability and cart follows; kept across visits. */
import { createContext, type ReactNode, useContext, useMemo, useState } from 'react';

export const ZONES = ['MSK', 'SPB', 'EKB'] as const;
export type Zone = (typeof ZONES)[number];
const KEY = 'mw.zone';

const ZoneContext = createContext<{ zone: Zone; setZone(z: Zone): void }>({
  zone: 'MSK',
  setZone: () => undefined,
});

export const isZone = (z: string | null): z is Zone => ZONES.some((x) => x === z);

export function ZoneProvider({ children }: { children: ReactNode }) {
  const [zone, set] = useState<Zone>(() => {
    const saved = localStorage.getItem(KEY);
    return isZone(saved) ? saved : 'MSK';
  });
  const value = useMemo(
    () => ({
      zone,
      setZone: (z: Zone) => {
        localStorage.setItem(KEY, z);
        set(z);
      },
    }),
    [zone],
  );
  return <ZoneContext.Provider value={value}>{children}</ZoneContext.Provider>;
}

export function useZone(): { zone: Zone; setZone(z: Zone): void } {
  return useContext(ZoneContext);
}
