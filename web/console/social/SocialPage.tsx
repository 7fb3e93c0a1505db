import { Button, Group } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { Link, Route, Routes, useLocation } from 'react-router';
import { NotFoundPage } from '../app/pages';
import { PageLoader } from '../app/PageLoader';
import { SOCIAL } from './data';

const AlertsPage = lazy(() => import('./AlertsPage'));
const FeedPage = lazy(() => import('./FeedPage'));
const CompetitorsPage = lazy(() => import('./CompetitorsPage'));
const CompetitorPage = lazy(() => import('./CompetitorPage'));
const ComparisonPage = lazy(() => import('./ComparisonPage'));

const SECTIONS = [
  { path: SOCIAL, label: 'Alertas' },
  { path: `${SOCIAL}/publicaciones`, label: 'Publicaciones' },
  { path: `${SOCIAL}/competidores`, label: 'Competidores' },
  { path: `${SOCIAL}/comparacion`, label: 'Comparación' },
] as const;

/** The screen's sections as links (each has its address): the current one is marked for screen readers. */
function Sections() {
  const { pathname } = useLocation();
  const current = [...SECTIONS].reverse().find((section) => pathname === section.path || pathname.startsWith(`${section.path}/`))?.path ?? SOCIAL;
  return (
    <nav aria-label="Secciones de redes sociales">
      <Group gap="xs" mb="md">
        {SECTIONS.map((section) => (
          <Button
            key={section.path}
            component={Link}
            to={section.path}
            size="xs"
            variant={section.path === current ? 'filled' : 'default'}
            aria-current={section.path === current ? 'page' : undefined}
          >
            {section.label}
          </Button>
        ))}
      </Group>
    </nav>
  );
}

/** `/redes`: social monitoring — alerts live, the feed of competitors' posts, competitors and their profiles, comparisons. */
export default function SocialPage() {
  return (
    <>
      <Sections />
      <Suspense fallback={<PageLoader />}>
        <Routes>
          <Route index element={<AlertsPage />} />
          <Route path="publicaciones" element={<FeedPage />} />
          <Route path="competidores" element={<CompetitorsPage />} />
          <Route path="competidores/:id" element={<CompetitorPage />} />
          <Route path="comparacion" element={<ComparisonPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Routes>
      </Suspense>
    </>
  );
}
