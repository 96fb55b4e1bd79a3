import packageJson from '../../package.json' with { type: 'json' }

/** The package version, embedded at build time. */
export const version: string = packageJson.version
