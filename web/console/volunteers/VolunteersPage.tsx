import { Anchor, Group } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { Link, Navigate, Route, Routes, useLocation } from 'react-router';
import { volunteersPolicy } from '../../../src/modules/volunteers/volunteers.policy';
import { NotFoundPage } from '../app/pages';
import { PageLoader } from '../app/PageLoader';
import { useSignedIn } from '../app/session';
import { VOLUNTEERS } from './types';

// Each screen of the module is its own chunk: the pyramid opens without the list's filters, and so on.
const VolunteersList = lazy(() => import('./VolunteersList'));
const VolunteerProfile = lazy(() => import('./VolunteerProfile'));
const PyramidPage = lazy(() => import('./PyramidPage'));
const LeaderboardPage = lazy(() => import('./LeaderboardPage'));
const ActivitiesPage = lazy(() => import('./ActivitiesPage'));

type Action = Parameters<typeof volunteersPolicy.allows>[1];

const SECTIONS: { path: string; label: string; action: Action }[] = [
  { path: VOLUNTEERS, label: 'Lista', action: 'read' },
  { path: `${VOLUNTEERS}/piramide`, label: 'Pirámide', action: 'readPyramid' },
  { path: `${VOLUNTEERS}/clasificacion`, label: 'Clasificación', action: 'readLeaderboard' },
  { path: `${VOLUNTEERS}/actividades`, label: 'Actividades', action: 'readActivities' },
];

/** The module's sections the role may open, as links (the one open marked for screen readers). */
function SectionLinks() {
  const { user } = useSignedIn();
  const { pathname } = useLocation();
  const sections = SECTIONS.filter((section) => volunteersPolicy.allows(user, section.action));
  return (
    <Group component="nav" aria-label="Secciones de voluntariado" gap="lg" mb="md">
      {sections.map((section) => {
        const current = pathname === section.path;
        return (
          <Anchor
            key={section.path}
            component={Link}
            to={section.path}
            fw={current ? 700 : 500}
            underline={current ? 'always' : 'hover'}
            aria-current={current ? 'page' : undefined}
          >
            {section.label}
          </Anchor>
        );
      })}
    </Group>
  );
}

/** The list for those who may read it (managers); the pyramid for the others (viewers). */
function Home() {
  const { user } = useSignedIn();
  return volunteersPolicy.allows(user, 'read') ? <VolunteersList /> : <Navigate to={`${VOLUNTEERS}/piramide`} replace />;
}

/** The Volunteers module: the list and each volunteer's page, the leader pyramid, the leaderboard and the activity log. */
export default function VolunteersPage() {
  return (
    <>
      <SectionLinks />
      <Suspense fallback={<PageLoader />}>
        <Routes>
          <Route index element={<Home />} />
          <Route path="piramide" element={<PyramidPage />} />
          <Route path="clasificacion" element={<LeaderboardPage />} />
          <Route path="actividades" element={<ActivitiesPage />} />
          <Route path=":id" element={<VolunteerProfile />} />
          <Route path="*" element={<NotFoundPage />} />
        </Routes>
      </Suspense>
    </>
  );
}
