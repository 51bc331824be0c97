// The library's heavy clients are optional peer dependencies (packages/murmur-agents/package.json): the providers'
// SDKs, the MCP SDK, BullMQ and ioredis. An application installs the ones it uses; the command's package brings
// them all. Loading one that is not installed says which package to install and for what, instead of Node's
// "Cannot find package … imported from …/chunk-XXXX.js".

/** A feature's package is not installed. */
export class MissingPeerError extends Error {
  constructor(
    readonly packageName: string,
    readonly feature: string,
  ) {
    super(`the package ${packageName} is not installed (it is needed for ${feature}): npm install ${packageName}`);
    this.name = 'MissingPeerError';
  }
}

/** Whether `error` is Node failing to find `packageName` itself (not a module the package imports). */
export function isMissingPackage(error: unknown, packageName: string): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const message = error instanceof Error ? error.message : '';
  return message.includes(`'${packageName}'`) || message.includes(`'${packageName}/`);
}

/**
 * Loads an optional peer: `load` is the literal `import('…')` (so bundlers and types see it); a missing package
 * becomes a MissingPeerError naming it and `feature`; any other failure is rethrown as it is.
 */
export async function importPeer<T>(load: () => Promise<T>, packageName: string, feature: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissingPackage(error, packageName)) throw new MissingPeerError(packageName, feature);
    throw error;
  }
}

/** One line for a failed load: the MissingPeerError's advice, or what went wrong loading an installed package. */
export function loadFailure(packageName: string, error: unknown): string {
  if (error instanceof MissingPeerError) return error.message;
  return `cannot load the ${packageName} package: ${error instanceof Error ? error.message : String(error)}`;
}
