import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import type { Role } from '../../../src/kernel/auth/roles';
import type { Session } from '../../lib/session';
import { queryClient, webSession } from './api';

interface SessionContext {
  session: Session | undefined;
  role: Role | undefined;
  login: (email: string, password: string) => Promise<void>;
  /** Forgets the session on this device; `everywhere` also ends every token of the account (all devices, sockets). */
  logout: (everywhere?: boolean) => Promise<void>;
  /** Why the last session ended, for the sign-in page ("Su sesión venció"). */
  endedBecause: string | null;
}

const Context = createContext<SessionContext | undefined>(undefined);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | undefined>(webSession.current);
  const [endedBecause, setEndedBecause] = useState<string | null>(null);

  useEffect(() => {
    // The API refused the token, or it ran out while the tab slept: sign-in again rather than a screen of refusals.
    webSession.onEnded = () => {
      queryClient.clear();
      setEndedBecause('Su sesión terminó. Ingrese de nuevo.');
      setSession(undefined);
    };
    return () => {
      webSession.onEnded = () => undefined;
    };
  }, []);

  const value: SessionContext = {
    session,
    role: session?.user.role,
    endedBecause,
    login: async (email, password) => {
      const started = await webSession.signIn(email, password);
      setEndedBecause(null);
      setSession(started);
    },
    logout: async (everywhere = false) => {
      if (everywhere) await webSession.signOutEverywhere();
      else webSession.signOut();
      queryClient.clear();
      setEndedBecause(null);
      setSession(undefined);
    },
  };
  return <Context.Provider value={value}>{children}</Context.Provider>;
}

export function useSession(): SessionContext {
  const value = useContext(Context);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}

/** The signed-in session (screens inside the shell only render with one). */
export function useSignedIn(): Session {
  const { session } = useSession();
  if (!session) throw new Error('useSignedIn without a session');
  return session;
}
