import type { Client } from 'openapi-fetch';
import type { paths } from '../../../server/src/generated/dashboard';

export type DashboardClient = Client<paths>;
