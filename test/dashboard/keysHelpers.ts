/** The dashboard's API key JSON, for the key tests. */
export interface ApiKey {
  id: string;
  prefix: string;
  mode: 'test' | 'live';
  label: string | null;
  scope: 'merchant' | 'partner';
  canRefund: boolean;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export interface CreatedKey {
  apiKey: ApiKey;
  secret: string;
}
