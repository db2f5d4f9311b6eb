// A time-zone field that can be searched: type "berl" or "new_y" and pick from the matches, instead of
// scrolling a 400-entry select. UTC is always offered (browsers leave it out of their zone list, so a
// select built from that list lost it once another zone was saved). The server checks the name.
import { useId } from 'react';
import { offsetMinutes, offsetText } from './zone.ts';

const ZONES = [
  'UTC',
  ...(
    (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? []
  ).filter((z) => z !== 'UTC'),
];

function offsetLabel(zone: string, now: Date): string {
  try {
    return `UTC${offsetText(offsetMinutes(zone, now))}`;
  } catch {
    return '';
  }
}

export function TimeZoneInput({
  id,
  name,
  defaultValue,
  describedBy,
}: {
  id: string;
  name: string;
  defaultValue: string;
  describedBy?: string;
}) {
  const listId = useId();
  const now = new Date();
  return (
    <>
      <input
        id={id}
        name={name}
        list={listId}
        defaultValue={defaultValue}
        autoComplete="off"
        spellCheck={false}
        placeholder="Search, e.g. Berlin or New_York"
        aria-describedby={describedBy}
      />
      <datalist id={listId}>
        {ZONES.map((z) => (
          <option key={z} value={z}>
            {offsetLabel(z, now)}
          </option>
        ))}
      </datalist>
    </>
  );
}
