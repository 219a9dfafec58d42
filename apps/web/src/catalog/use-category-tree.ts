import { useQuery } from '@tanstack/react-query';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';

/** The whole category tree (public; cached a minute: it changes rarely). */
export function useCategoryTree() {
  const api = useApi();
  return useQuery({
    queryKey: ['categories'],
    queryFn: async () => unwrap(await api.catalog.GET('/categories')),
    staleTime: 60_000,
  });
}
