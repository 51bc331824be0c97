// The library's handle on a run, a swarm or a resume, over the host's Run (host/run.ts): the session id and the
// events at once, the report on `done`. The handle is thenable, so `await murmur.run(…)` is the report as before.
import type { Finished } from '../host/lifecycle.js';
import type { HostRun } from '../host/run.js';
import { HostInputError } from '../host/errors.js';
import { optionError } from './option-error.js';
import type { EventsOptions, RunEvents, RunHandle } from './handle-types.js';

/** The option a refused request names. */
const OPTION_OF_PART = { agent: 'agent', swarm: 'swarm', session: 'sessionId', answers: 'answers' } as const;

class Handle<R> implements RunHandle<R> {
  readonly done: Promise<R>;

  constructor(
    private readonly run: HostRun,
    report: (finished: Finished) => R,
  ) {
    this.done = run.done.then(
      (result) => {
        if (!result.ok) throw optionError(OPTION_OF_PART[result.refused.part], `${result.refused.message}.`);
        return report(result.finished);
      },
      (error: unknown) => {
        if (error instanceof HostInputError) throw optionError(error.option, error.message);
        throw error;
      },
    );
  }

  get sessionId(): string {
    return this.run.sessionId;
  }

  abort(reason?: string): void {
    this.run.abort(reason);
  }

  events(options?: EventsOptions): RunEvents {
    return this.run.events(options) as RunEvents;
  }

  then<A = R, B = never>(
    onfulfilled?: ((report: R) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.done.then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<R | B> {
    return this.done.catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<R> {
    return this.done.finally(onfinally);
  }
}

/** The library's handle on a host run; `report` turns what finished into the report. */
export function handleOn<R>(run: HostRun, report: (finished: Finished) => R): RunHandle<R> {
  return new Handle(run, report);
}
