import { lazy } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { NotFoundPage } from '../app/pages';
import { QUEUE_PATH, usePqrsLive } from './data';
import QueuePage from './QueuePage';

const RequestPage = lazy(() => import('./RequestPage'));

/**
 * The PQRS desk: the queue at /pqrs/cola and each request at /pqrs/:id, both following the desk's
 * live room. The server answers /pqrs itself with the citizens' public form (a browser asking for
 * that page is a citizen as often as staff), so the console's own address for the queue is
 * /pqrs/cola, where a reload or a shared link with filters lands; /pqrs (the menu, the
 * dashboard's link) leads there.
 */
export default function PqrsPage() {
  usePqrsLive();
  const location = useLocation();
  return (
    <Routes>
      <Route index element={<Navigate to={{ pathname: QUEUE_PATH, search: location.search }} replace />} />
      <Route path="cola" element={<QueuePage />} />
      <Route path=":id" element={<RequestPage />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
