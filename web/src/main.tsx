import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './App.tsx';
import { getSettings, settingsKeys } from './api/settings.ts';
import { queryClient } from './lib/query.ts';
import './style.css';

// A page that edits email needs the editor's chunk: opened at such an address, its download starts now,
// beside the session's first request, instead of after the page has rendered and asked for it; a draft's
// page also waits for the account's settings (the sender defaults), asked for now rather than after /me.
const path = window.location.pathname;
if (/^\/app\/(campaigns\/(new|[0-9a-f-]{36})|automations\/|forms\/)/.test(path))
  void import('./editor/BlockEditor.tsx');
if (/^\/app\/campaigns\/(new|[0-9a-f-]{36})/.test(path))
  void queryClient.prefetchQuery({ queryKey: settingsKeys.settings, queryFn: getSettings });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <App />
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
