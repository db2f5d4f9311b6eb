// The one table of the dashboard (TanStack Table): every list page gives it columns and rows and gets
// sorting by clicking a header, the pager, and the same loading, error and empty states.
import {
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type ColumnDef,
  type SortingState,
} from '@tanstack/react-table';
import { useState, type ReactNode } from 'react';
import type { Pagination } from '../api/client.ts';
import { Alert, Loading } from '../ui.tsx';

export type { ColumnDef };

/** The last column of a list whose rows have buttons: not sortable, its header read by screen readers only. */
export function actionsColumn<T>(cell: (row: T) => ReactNode): ColumnDef<T> {
  return {
    id: 'actions',
    header: () => <span className="visually-hidden">Actions</span>,
    enableSorting: false,
    meta: { className: 'actions' },
    cell: ({ row }) => cell(row.original),
  };
}

export interface Paging {
  page: number;
  lastPage: number;
  onPage: (page: number) => void;
}

/** A list answer's pagination as the pager wants it; none while the list loads. */
export function pagingOf(p: Pagination | undefined, onPage: (page: number) => void): Paging | undefined {
  return p && { page: p.current_page, lastPage: p.total_pages, onPage };
}

export function DataTable<T>({
  label,
  columns,
  rows,
  error,
  empty,
  paging,
  rowKey,
  rowProps,
}: {
  label: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  columns: ColumnDef<T, any>[];
  rows: T[] | undefined;
  error?: unknown;
  empty: ReactNode;
  paging?: Paging;
  rowKey?: (row: T) => string;
  rowProps?: (row: T) => Record<string, string>;
}) {
  const [sorting, setSorting] = useState<SortingState>([]);
  const table = useReactTable({
    data: rows ?? [],
    columns,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId: rowKey ? (row) => rowKey(row) : undefined,
  });
  if (error) return <Alert error={error} />;
  if (!rows) return <Loading />;
  if (rows.length === 0) return <p className="empty">{empty}</p>;
  return (
    <>
      <div className="table-wrap">
        <table className="data" aria-label={label}>
          <thead>
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => {
                  const sorted = header.column.getIsSorted();
                  const title = flexRender(header.column.columnDef.header, header.getContext());
                  return (
                    <th
                      key={header.id}
                      scope="col"
                      aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}
                    >
                      {header.column.getCanSort() ? (
                        <button type="button" className="sort" onClick={header.column.getToggleSortingHandler()}>
                          {title}
                          <span aria-hidden="true">{sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}</span>
                        </button>
                      ) : (
                        title
                      )}
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <tbody>
            {table.getRowModel().rows.map((row) => (
              <tr key={row.id} {...rowProps?.(row.original)}>
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id} className={(cell.column.columnDef.meta as { className?: string })?.className}>
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {paging && <Pager {...paging} />}
    </>
  );
}

function Pager({ page, lastPage, onPage }: Paging) {
  if (lastPage <= 1) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {lastPage}
      </span>
      <button type="button" className="secondary" disabled={page >= lastPage} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
