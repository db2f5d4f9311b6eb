// Asks before leaving a page whose changes are not saved yet: closing or reloading the tab gets the
// browser's own question (beforeunload), and a click on a link inside the dashboard gets an in-page one
// (the router here is a plain BrowserRouter, which has no navigation blocker). Small: pages import it directly.
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';

export function LeaveGuard({ when, message }: { when: boolean; message: string }) {
  const navigate = useNavigate();
  const [leavingTo, setLeavingTo] = useState<string>();
  const active = useRef(when);
  active.current = when;
  useEffect(() => {
    if (!when) return;
    const unload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    // capture, on the document: it runs before the router's own click handler on the link
    const click = (e: MouseEvent) => {
      if (!active.current || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey)
        return;
      const a = (e.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!a || a.target === '_blank' || a.hasAttribute('download')) return;
      const url = new URL(a.href, location.href);
      if (url.origin !== location.origin || url.pathname + url.search === location.pathname + location.search) return;
      if (url.pathname + url.search + url.hash === location.pathname + location.search + url.hash && url.hash) return;
      e.preventDefault();
      e.stopPropagation();
      setLeavingTo(url.pathname + url.search + url.hash);
    };
    window.addEventListener('beforeunload', unload);
    document.addEventListener('click', click, true);
    return () => {
      window.removeEventListener('beforeunload', unload);
      document.removeEventListener('click', click, true);
    };
  }, [when]);
  if (!leavingTo) return null;
  return (
    <div className="leave-guard alert alert-warning" role="alertdialog" aria-label="Leave this page?">
      <span>{message}</span>
      <span className="buttons">
        <button type="button" className="secondary small" onClick={() => setLeavingTo(undefined)} autoFocus>
          Stay
        </button>
        <button
          type="button"
          className="danger small"
          onClick={() => {
            active.current = false;
            const to = leavingTo;
            setLeavingTo(undefined);
            navigate(to);
          }}
        >
          Leave without saving
        </button>
      </span>
    </div>
  );
}
