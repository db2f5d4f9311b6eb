// A form's submit as one hook: the default action stopped, `busy` while the call runs, its failure kept
// as `error` for the form's Alert and fields. `act` gets the fields and the form (to reset it).
import { useState, type FormEvent } from 'react';

export function useFormAction(act: (fields: FormData, form: HTMLFormElement) => Promise<unknown>) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    setBusy(true);
    setError(undefined);
    try {
      await act(new FormData(form), form);
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };
  return { submit, error, busy };
}
