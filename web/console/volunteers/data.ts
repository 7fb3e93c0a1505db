import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api } from '../app/api';
import { VOLUNTEERS_API, type Pyramid } from './types';

/** The whole leader pyramid: one answer with every volunteer and its figures (the API computes them in one statement). */
export function usePyramid(enabled = true) {
  return useQuery({ queryKey: ['volunteers', 'pyramid'], queryFn: () => api.get<Pyramid>(`${VOLUNTEERS_API}/pyramid`), enabled });
}

/** Volunteers' names by id, from the pyramid (names only: it holds no contact details). */
export function useVolunteerNames(enabled = true): ReadonlyMap<string, string> | undefined {
  const pyramid = usePyramid(enabled);
  return useMemo(() => (pyramid.data ? new Map(pyramid.data.nodes.map((node) => [node.id, node.name])) : undefined), [pyramid.data]);
}
