/** Signs in, then routes between the console's pages. */
import { useEffect, useState, useSyncExternalStore } from 'react';
import { Layout } from './components/Layout';
import { ErrorMessage, Loading } from './components/Messages';
import { MeDocument } from './generated/graphql';
import { ApiError, messageOf, request } from './lib/api';
import { navigate, useLocation } from './lib/router';
import { PropertyNamesProvider } from './lib/propertyNames';
import { session, takeSignInOutcome, type Me } from './lib/session';
import { CsvPage } from './pages/CsvPage';
import { EntityPage } from './pages/EntityPage';
import { PoliciesPage } from './pages/PoliciesPage';
import { PropertyCatalogue } from './pages/PropertyCatalogue';
import { PropertyForm } from './pages/PropertyForm';
import { PropertyPage } from './pages/PropertyPage';
import { SearchPage } from './pages/SearchPage';
import { SignIn } from './pages/SignIn';
import { TestForm } from './pages/TestForm';
import { TestDashboard, TestPage } from './pages/TestPages';

export function App() {
  // The browser's session cookie says who this is; `me` is asked again at every sign-in or sign-out, in any tab.
  const epoch = useSyncExternalStore(session.subscribe, session.snapshot);
  const signedOut = session.isSignedOut();
  const location = useLocation();
  const [me, setMe] = useState<Me | null>(null);
  const [error, setError] = useState<string | null>(null);
  useState(takeSignInOutcome);

  useEffect(() => {
    setMe(null);
    setError(null);
    if (signedOut) return;
    let current = true;
    request(MeDocument, {})
      .then((data) => {
        if (!current) return;
        session.confirm();
        setMe(data.me);
      })
      .catch((err: unknown) => {
        // A 401 has signed this tab out already (lib/api.ts): the sign-in page follows.
        if (current && !(err instanceof ApiError && err.code === 'UNAUTHENTICATED')) setError(messageOf(err));
      });
    return () => {
      current = false;
    };
  }, [epoch, signedOut]);

  useEffect(() => {
    if (location.path === '/') navigate('/properties', { replace: true });
  }, [location.path]);

  useEffect(() => {
    const title = document.querySelector('main h1')?.textContent;
    document.title = title ? `${title} · propgraph console` : 'propgraph console';
  });

  if (signedOut) return <SignIn />;
  if (error) return <main id="main"><ErrorMessage title="The console could not start.">{error}</ErrorMessage></main>;
  if (!me) return <main id="main"><Loading what="your account" /></main>;
  return (
    <PropertyNamesProvider>
      <Layout me={me} path={location.path}>
        <Page me={me} path={location.path} params={location.params} />
      </Layout>
    </PropertyNamesProvider>
  );
}

function Page({ me, path, params }: { me: Me; path: string; params: URLSearchParams }) {
  const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
  const [section, id, action] = segments;
  if (section === 'properties' && id === 'new') return <PropertyForm me={me} urn={null} />;
  if (section === 'properties' && id && action === 'edit') return <PropertyForm me={me} urn={id} />;
  if (section === 'properties' && id) return <PropertyPage me={me} urn={id} key={id} followMigration={params.get('migration') === 'started'} />;
  if (section === 'properties') return <PropertyCatalogue me={me} params={params} />;
  if (section === 'search') return <SearchPage me={me} params={params} />;
  if (section === 'csv') return <CsvPage me={me} params={params} />;
  if (section === 'entity' && id) return <EntityPage me={me} urn={id} key={id} />;
  if (section === 'tests' && id === 'new') return <TestForm me={me} urn={null} />;
  if (section === 'tests' && id && action === 'edit') return <TestForm me={me} urn={id} key={`${id}/edit`} />;
  if (section === 'tests' && id) return <TestPage me={me} urn={id} key={id} />;
  if (section === 'tests') return <TestDashboard me={me} />;
  if (section === 'policies') return <PoliciesPage me={me} />;
  return (
    <>
      <h1>Page not found</h1>
      <p>There is no console page at {path}.</p>
    </>
  );
}
