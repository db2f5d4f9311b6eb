// The account's image library: every uploaded image as a thumbnail to pick, an upload button, and delete
// (asked first). Images are served by Mailgrove itself under PUBLIC_URL, so the dashboard's CSP
// (img-src 'self') shows them and sent mail links to them.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { deleteImage, editorKeys, listImages, uploadImage, type Image } from '../api/editor.ts';
import { ConfirmButton } from '../lib/Confirm.tsx';
import { Alert } from '../ui.tsx';

export const IMAGE_TYPES = 'image/png,image/jpeg,image/gif,image/webp';

/** Uploads a file into the library; the library's list is refreshed for every open picker. */
export function useUpload() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (file: File) => uploadImage(file),
    onSuccess: () => client.invalidateQueries({ queryKey: editorKeys.allImages }),
  });
}

export function ImageLibrary({ onPick, onClose }: { onPick: (image: Image) => void; onClose: () => void }) {
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const images = useQuery({ queryKey: editorKeys.images(page), queryFn: () => listImages({ page, per_page: 24 }) });
  const upload = useUpload();
  return (
    <div className="be-library" role="group" aria-label="Image library">
      <div className="title-row">
        <h3>Image library</h3>
        <div className="buttons">
          <label className="button small">
            Upload an image
            <input
              type="file"
              accept={IMAGE_TYPES}
              className="visually-hidden"
              onChange={(e) => {
                const file = e.target.files?.[0];
                e.target.value = '';
                if (file) upload.mutate(file, { onSuccess: onPick });
              }}
            />
          </label>
          <button type="button" className="small secondary" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      {upload.isPending && <p className="muted">Uploading…</p>}
      <Alert error={upload.error ?? images.error} />
      {images.data && images.data.images.length === 0 && (
        <p className="muted">No images yet: upload one, or drop a file on the design.</p>
      )}
      <ul className="be-library-grid">
        {images.data?.images.map((img) => (
          <li key={img.id}>
            <button type="button" className="be-thumb" onClick={() => onPick(img)} aria-label={`Use image ${img.id}`}>
              <img src={img.url} alt="" loading="lazy" />
            </button>
            <span className="muted small-text">
              {img.width}×{img.height}
            </span>
            <ConfirmButton
              label="Delete"
              name={`Delete image ${img.id}`}
              question="Delete this image? Sent emails that show it lose it."
              onConfirm={async () => {
                await deleteImage(img.id);
                await client.invalidateQueries({ queryKey: editorKeys.allImages });
              }}
            />
          </li>
        ))}
      </ul>
      {images.data && images.data.pagination.total_pages > 1 && (
        <div className="buttons">
          <button type="button" className="small secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <button
            type="button"
            className="small secondary"
            disabled={page >= images.data.pagination.total_pages}
            onClick={() => setPage(page + 1)}
          >
            Next
          </button>
        </div>
      )}
    </div>
  );
}
