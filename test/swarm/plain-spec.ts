// A swarm run's spec for tests that drive a SwarmRun by hand: items run as workers, no verify, no isolation, the
// default ramp from `burst` items at once.
import { DEFAULT_CONTROLLER_OPTIONS } from '../../swarm/controller.js';
import type { SwarmItem } from '../../swarm/item-state.js';
import type { SwarmRunSpec } from '../../swarm/runner.js';

export function plainSpec(description: string, items: readonly SwarmItem[], burst: number): SwarmRunSpec {
  return {
    swarmId: 's-1',
    description,
    items,
    role: 'worker',
    verify: false,
    maxRounds: 1,
    isolation: 'none',
    settings: {
      controller: { ...DEFAULT_CONTROLLER_OPTIONS, initialBurst: burst },
      itemTimeoutMs: 60_000,
      maxRounds: 1,
    },
  };
}
