// The time-zone names murmur offers and recognises, one list shared by the checks (`murmur schedule`, the
// create_scheduled_task tool, the console's API) and the console's zone select. Node's
// Intl.supportedValuesOf('timeZone') lists CLDR's older spellings only (Asia/Calcutta, not Asia/Kolkata; no UTC,
// no Etc/*), so the current IANA names and common aliases that Intl accepts are added. A name is never rewritten
// to another zone's name (Intl's resolvedOptions would turn Asia/Kolkata into Asia/Calcutta): only its case is
// fixed, to the listed spelling.
import { isValidTimeZone } from './schedule.js';

/** Well-known IANA names Intl accepts but does not list (kept when this Node accepts them). */
const EXTRA_ZONES: readonly string[] = [
  // Current IANA names that CLDR still files under an older one.
  'Africa/Asmara',
  'America/Argentina/Buenos_Aires',
  'America/Argentina/Catamarca',
  'America/Argentina/Cordoba',
  'America/Argentina/Jujuy',
  'America/Argentina/Mendoza',
  'America/Atikokan',
  'America/Indiana/Indianapolis',
  'America/Kentucky/Louisville',
  'America/Nuuk',
  'Asia/Ho_Chi_Minh',
  'Asia/Kathmandu',
  'Asia/Kolkata',
  'Asia/Yangon',
  'Atlantic/Faroe',
  'Europe/Kyiv',
  'Pacific/Chuuk',
  'Pacific/Kanton',
  'Pacific/Pohnpei',
  // The older spellings people still type (listed by most Nodes already).
  'Asia/Calcutta',
  'Asia/Saigon',
  'Asia/Katmandu',
  'Asia/Rangoon',
  'Europe/Kiev',
  'America/Buenos_Aires',
  'America/Godthab',
  'America/Indianapolis',
  'America/Louisville',
  'Atlantic/Faeroe',
  'Pacific/Enderbury',
  'Pacific/Truk',
  'Pacific/Ponape',
  // UTC and fixed offsets (Etc/GMT+5 is five hours behind UTC, as POSIX has it).
  'UTC',
  'GMT',
  'UCT',
  'Universal',
  'Zulu',
  'Greenwich',
  'GMT0',
  'Etc/UTC',
  'Etc/GMT',
  'Etc/UCT',
  'Etc/Universal',
  'Etc/Zulu',
  'Etc/Greenwich',
  'Etc/GMT0',
  ...Array.from({ length: 12 }, (_, i) => `Etc/GMT+${i + 1}`),
  ...Array.from({ length: 14 }, (_, i) => `Etc/GMT-${i + 1}`),
  // North American aliases and the POSIX-style zones.
  'US/Alaska',
  'US/Aleutian',
  'US/Arizona',
  'US/Central',
  'US/East-Indiana',
  'US/Eastern',
  'US/Hawaii',
  'US/Michigan',
  'US/Mountain',
  'US/Pacific',
  'US/Samoa',
  'Canada/Atlantic',
  'Canada/Central',
  'Canada/Eastern',
  'Canada/Mountain',
  'Canada/Newfoundland',
  'Canada/Pacific',
  'Canada/Saskatchewan',
  'Canada/Yukon',
  'EST5EDT',
  'CST6CDT',
  'MST7MDT',
  'PST8PDT',
  'EST',
  'MST',
  'HST',
  'CET',
  'EET',
  'MET',
  'WET',
];

let listed: readonly string[] | undefined;
let exact: Set<string> | undefined;
let byLowerCase: Map<string, string> | undefined;

/** Every zone name offered, sorted: what this Node lists plus the accepted extras. */
export function timeZoneNames(): readonly string[] {
  if (!listed) {
    let supported: string[];
    try {
      supported = Intl.supportedValuesOf('timeZone');
    } catch {
      supported = [];
    }
    const names = new Set(supported);
    for (const zone of EXTRA_ZONES) if (isValidTimeZone(zone)) names.add(zone);
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
