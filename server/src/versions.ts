/**
 * Published `Svc-Version` values, oldest first (docs/decisions.md §3). A credential is pinned to the newest one
 * when it is created, so publishing a version never changes what an existing integration receives.
 */
export const PUBLISHED_VERSIONS = ['2026-02-18'] as const;

export type ApiVersion = (typeof PUBLISHED_VERSIONS)[number];

export const CURRENT_VERSION: ApiVersion = PUBLISHED_VERSIONS[PUBLISHED_VERSIONS.length - 1]!;
