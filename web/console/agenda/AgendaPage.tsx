import { lazy } from 'react';
import { Route, Routes } from 'react-router';
import { NotFoundPage } from '../app/pages';
import CalendarPage from './CalendarPage';

const EventFormPage = lazy(() => import('./EventFormPage'));
const EventPage = lazy(() => import('./EventPage'));

/** The agenda: the calendar at /agenda, a new event, each event with its answers, door, logistics and tasks. */
export default function AgendaPage() {
  return (
    <Routes>
      <Route index element={<CalendarPage />} />
      <Route path="nuevo" element={<EventFormPage />} />
      <Route path=":id/editar" element={<EventFormPage />} />
      <Route path=":id/*" element={<EventPage />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
