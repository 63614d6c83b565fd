import { Alert, Center, Loader } from '@mantine/core';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { InvitationPage, PasswordResetPage, SetupPage, SignInPage } from '../pages/auth.tsx';
import { Layout } from './Layout.tsx';
import { NAVIGATION, SCREENS, type Screen } from './screens.tsx';
import { useCan, useSession } from './session.tsx';

function RequireSession({ children }: { children: React.ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) {
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (!session.data) return <Navigate to="/sign-in" replace state={{ from: location.pathname + location.search }} />;
  return <>{children}</>;
}

/** A screen the role may not use says so instead of showing forms the server would refuse. */
function Permitted({ screen }: { screen: Screen }) {
  const can = useCan();
  const { data: session } = useSession();
  if (!screen.needs || can(...screen.needs)) return <>{screen.element}</>;
  if (screen.path === '/') {
    const first = NAVIGATION.find((item) => can('GET', item.route));
    if (first && first.to !== '/') return <Navigate to={first.to} replace />;
  }
  return (
    <Alert color="orange" title="Not for your role" data-testid="not-permitted">
      {screen.refused ?? `Your role ${session?.role ?? ''} may not use this page.`}
    </Alert>
  );
}

export function App() {
  return (
    <Routes>
      <Route path="/sign-in" element={<SignInPage />} />
      <Route path="/setup" element={<SetupPage />} />
      <Route path="/invitation" element={<InvitationPage />} />
      <Route path="/password-reset" element={<PasswordResetPage />} />
      <Route
        element={
          <RequireSession>
            <Layout />
          </RequireSession>
        }
      >
        {SCREENS.map((screen) => (
          <Route key={screen.path} path={screen.path} element={<Permitted screen={screen} />} />
        ))}
        <Route path="*" element={<Navigate to="/" replace />} />
      </Route>
    </Routes>
  );
}
