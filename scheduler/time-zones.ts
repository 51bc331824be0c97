// The time-zone names murmur offers and recognises, one list shared by the checks (`murmur schedule`, the
// create_scheduled_task tool, the console's API) and the console's zone select: the IANA names (tzdata's
// zone1970.tab and its backward links, checked in as iana-zones.ts so no /usr/share/zoneinfo is needed) that
// this Node's Intl accepts. Node's Intl.supportedValuesOf('timeZone') lists CLDR's older spellings only
// (Asia/Calcutta, not Asia/Kolkata; no UTC, no Etc/*). A name is never rewritten to another zone's name (Intl's
// resolvedOptions would turn Asia/Kolkata into Asia/Calcutta): only its case is fixed, to the listed spelling.
import { IANA_ZONE_NAMES } from './iana-zones.js';
import { isValidTimeZone } from './schedule.js';

let listed: readonly string[] | undefined;
let exact: Set<string> | undefined;
let byLowerCase: Map<string, string> | undefined;

/** Every zone name offered, sorted: the IANA names this Node accepts, plus any it lists that tzdata lacks. */
export function timeZoneNames(): readonly string[] {
  if (!listed) {
    const names = new Set<string>();
    for (const zone of IANA_ZONE_NAMES.split(/\s+/)) if (zone !== '' && isValidTimeZone(zone)) names.add(zone);
    try {
      for (const zone of Intl.supportedValuesOf('timeZone')) names.add(zone);
    } catch {
      // An Intl without the list: the IANA names alone.
    }
    listed = Object.freeze([...names].sort());
  }
  return listed;
}

/**
 * The zone as it is stored: the listed spelling of a name given in any case (`utc` → `UTC`), a name Intl
 * accepts but the list lacks as typed (trimmed), or undefined for an unknown zone.
 */
export function normalizeTimeZone(text: string): string | undefined {
  const zone = text.trim();
  if (zone === '') return undefined;
  if (!exact || !byLowerCase) {
    exact = new Set(timeZoneNames());
    byLowerCase = new Map();
    for (const name of exact) if (!byLowerCase.has(name.toLowerCase())) byLowerCase.set(name.toLowerCase(), name);
  }
  const listedName = exact.has(zone) ? zone : byLowerCase.get(zone.toLowerCase());
  if (listedName !== undefined) return listedName;
  return isValidTimeZone(zone) ? zone : undefined;
}
