// Environment variables as murmur reads them. Declared here rather than as NodeJS.ProcessEnv so the published
// types need no @types/node in a consumer's project (process.env is assignable to it).
export type Environment = Record<string, string | undefined>;
