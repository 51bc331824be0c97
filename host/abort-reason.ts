// Why a run was aborted, in words: what the caller gave its AbortSignal (or the handle's abort) becomes the run's
// reason, on every aborted agent and on the report.

/** A signal's reason as text: a string as given, an Error's message; none (or the default AbortError) is 'aborted'. */
export function abortReasonText(reason: unknown): string {
  if (reason === undefined || reason === null) return 'aborted';
  if (typeof reason === 'string') return reason.trim() === '' ? 'aborted' : reason;
  if (reason instanceof Error) return reason.name === 'AbortError' || !reason.message ? 'aborted' : reason.message;
  try {
    return JSON.stringify(reason) ?? String(reason);
  } catch {
    return String(reason);
  }
}
