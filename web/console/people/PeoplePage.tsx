import { lazy, Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { NotFoundPage } from '../app/pages';
import { PageLoader } from '../app/PageLoader';
import PeopleList from './PeopleList';

// Each screen of the module is its own chunk: the list opens without the person page's forms.
const PersonPage = lazy(() => import('./PersonPage'));
const ImportPage = lazy(() => import('./ImportPage'));
const DuplicatesPage = lazy(() => import('./DuplicatesPage'));

/** The People module: search, a person's page, the supporters' import, duplicates and merges. */
export default function PeoplePage() {
  return (
    <Suspense fallback={<PageLoader />}>
      <Routes>
        <Route index element={<PeopleList />} />
        <Route path="importar" element={<ImportPage />} />
        <Route path="duplicados" element={<DuplicatesPage />} />
        <Route path=":id" element={<PersonPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </Suspense>
  );
}
