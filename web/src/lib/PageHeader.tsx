// The one page header of the dashboard: the page's h1 (a name, with a status badge where it has one) and the
// page's main actions beside it, wrapping below it on a narrow screen.
import type { ReactNode } from 'react';

export function PageHeader({
  title,
  children,
  breakTitle,
}: {
  title: ReactNode;
  /** the page's actions: buttons, links, a confirm */
  children?: ReactNode;
  /** a long unbroken title (an email address) may break anywhere */
  breakTitle?: boolean;
}) {
  return (
    <div className="title-row">
      <h1 className={breakTitle ? 'break' : undefined}>{title}</h1>
      {children}
    </div>
  );
}
