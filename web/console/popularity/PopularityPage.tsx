import { lazy } from 'react';
import { Route, Routes } from 'react-router';
import { NotFoundPage } from '../app/pages';
import RacePage from './RacePage';

const PollsPage = lazy(() => import('./PollsPage'));
const NewPollPage = lazy(() => import('./NewPollPage'));
const PollPage = lazy(() => import('./PollPage'));
const SwotPage = lazy(() => import('./SwotPage'));

/** Popularity: the race (poll average, lead, composite score) at /popularidad, the poll register and the SWOT board. */
export default function PopularityPage() {
  return (
    <Routes>
      <Route index element={<RacePage />} />
      <Route path="encuestas" element={<PollsPage />} />
      <Route path="encuestas/nueva" element={<NewPollPage />} />
      <Route path="encuestas/:id" element={<PollPage />} />
      <Route path="dofa" element={<SwotPage />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
