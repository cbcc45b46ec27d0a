/**
 * Published `Svc-Version` values, oldest first (docs/decisions.md §3). A credential is pinned to the newest one
 * when it is created, so publishing a version never changes what an existing integration receives.
 */
export const PUBLISHED_VERSIONS = ['2026-02-18'] as const;

export type ApiVersion = (typeof PUBLISHED_VERSIONS)[number];

export const CURRENT_VERSION: ApiVersion = PUBLISHED_VERSIONS[PUBLISHED_VERSIONS.length - 1]!;

/**
 * Published previews (`YYYY-MM-DD.preview`, WalletConnect Pay's form): WalletConnect Pay's SDKs send
 * `2026-02-19.preview` in `WCP-Version` on every call, and that preview's gateway shapes are 2026-02-18's
 * (docs/decisions.md §28), so it is served as 2026-02-18. A preview is never a pin.
 */
export const PREVIEW_VERSIONS = ['2026-02-19.preview'] as const;
