// The checked-in list of IANA names (scheduler/iana-zones.ts) against the tz database it is made from:
// the same as the generator makes from this machine's tzdata when their versions match, with every current
// zone and backward link; and what the console and the CLI offer from it on a machine without tzdata.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ianaZones, readIanaZones, zonesModule, ZONEINFO } from '../../cli/gen-time-zones.js';
import { IANA_TZDATA_VERSION, IANA_ZONE_NAMES } from '../../scheduler/iana-zones.js';
import { timeZoneNames } from '../../scheduler/time-zones.js';
import { ROOT } from '../murmur-bin.js';
import { ZONES_NODE_LACKS } from './zone-names.js';
import path from 'node:path';

const checkedIn = IANA_ZONE_NAMES.split(/\s+/).filter(Boolean);
const hasTzdata = existsSync(`${ZONEINFO}/tzdata.zi`) && existsSync(`${ZONEINFO}/zone1970.tab`);

describe('the IANA zone list', () => {
  it('reads zone1970.tab zones and tzdata.zi zones and links, without Factory', () => {
    const zones = ianaZones(
      '# comment\nAD\t+4230+00131\tEurope/Andorra\nIN\t+2232+08822\tAsia/Kolkata\n',
      '# version 2099z\nZ Etc/UTC 0 - UTC\nZ Factory 0 - -00\nL Etc/UTC UTC\nL Asia/Kolkata Asia/Calcutta\nR d 1916 o - Jun 14 23s 1 S\n',
    );
    expect(zones).toEqual({
      version: '2099z',
      names: ['Asia/Calcutta', 'Asia/Kolkata', 'Etc/UTC', 'Europe/Andorra', 'UTC'],
    });
    expect(zonesModule(zones)).toContain("IANA_TZDATA_VERSION = '2099z'");
  });

  it('holds the names Node leaves out, and every name offered is one this Node accepts', () => {
    for (const zone of [...ZONES_NODE_LACKS, 'Asia/Calcutta', 'US/Eastern']) {
      expect(checkedIn, zone).toContain(zone);
      expect(timeZoneNames(), zone).toContain(zone);
    }
    expect(checkedIn.length).toBeGreaterThan(550);
    expect([...checkedIn].sort()).toEqual(checkedIn);
  });

  it.skipIf(!hasTzdata)("is what the generator makes from this machine's tzdata (same version)", () => {
    const system = readIanaZones();
    if (system.version !== IANA_TZDATA_VERSION) {
      console.warn(
        `tzdata here is ${system.version}, the checked-in list ${IANA_TZDATA_VERSION}: regenerate it with npm run zones`,
      );
      return;
    }
    expect(readFileSync(path.join(ROOT, 'scheduler/iana-zones.ts'), 'utf8')).toBe(zonesModule(system));
  });
});
