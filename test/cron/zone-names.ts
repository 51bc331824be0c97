// Valid IANA zone names that Node 20's Intl.supportedValuesOf('timeZone') leaves out (it lists CLDR's older
// spellings): the names murmur's own list must hold, for the CLI and the console alike.
export const ZONES_NODE_LACKS = [
  'Asia/Kolkata',
  'Europe/Kyiv',
  'Asia/Ho_Chi_Minh',
  'America/Argentina/Buenos_Aires',
  'Etc/UTC',
  'UTC',
] as const;
